/** What every provider's stream needs alike: tool inputs parsed, a short stream and a dropped socket recognised. */

/** A tool input as sent; JSON the model got wrong is passed on as the raw string, for the tool to refuse. */
export function parseToolInput(json: string): unknown {
  if (!json.trim()) return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/** The stream closed without `message_stop`: the answer is incomplete. */
export class StreamEndedEarly extends Error {}

/** A socket that failed under an open response (the SDK only wraps failures before the response starts). */
export function isSocketError(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? '';
    if (/^(UND_ERR_|ECONN|EPIPE|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)/.test(code) || cause.message === 'terminated') return true;
  }
  return false;
}

