import type { LlmErrorKind } from './languageModel';

const CONTEXT_TOO_LONG = /prompt is too long|context.{0,12}(length|window)|too many (input )?tokens|maximum context|exceeds? the (model'?s? )?context|context_length_exceeded/i;

/**
 * The kind of an HTTP failure, the same for every provider: the fallback chain and the messages
 * depend on it, not on which SDK reported it.
 */
export function kindOfStatus(status: number, detail = ''): LlmErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 413 || (status === 400 && CONTEXT_TOO_LONG.test(detail))) return 'context-too-long';
  if (status === 404) return 'model-not-found';
  if (status === 429) return 'rate-limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 408 || status === 502 || status === 504) return 'network';
  return 'other';
}
