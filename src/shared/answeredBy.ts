/** A model of a fallback chain that did not answer, as the footer, the log and the CLI name it. */
export interface FailedModel {
  model: string;
  kind: string;
  message: string;
}

/** "ollama/qwen2.5-coder:7b after anthropic/claude-sonnet-5-5 failed (overloaded)". */
export function answeredBy(model: string, attempts: readonly FailedModel[] = []): string {
  if (!attempts.length) return model;
  return `${model} after ${attempts.map((attempt) => `${attempt.model} failed (${whyFailed(attempt)})`).join(', ')}`;
}

function whyFailed(attempt: FailedModel): string {
  return attempt.kind === 'auth' && /no API key/.test(attempt.message) ? 'no key' : attempt.kind;
}
