/** When a conversation is near the model's context limit: the chat view and `repo-wiki query` warn alike. */

/** The share of the model's context window an answer's prompt may fill before the warning shows. */
export const CONTEXT_WARNING_SHARE = 0.8;

/** How full the model's context was for an answer (0..1), when that is near the limit; else undefined. */
export function nearContextLimit(promptTokens: number | undefined, contextWindow: number): number | undefined {
  const share = contextWindow ? (Number(promptTokens) || 0) / contextWindow : 0;
  return share >= CONTEXT_WARNING_SHARE ? share : undefined;
}

/** The warning's first sentence; each front end adds how to start a new conversation there. */
export const nearLimitMessage = (share: number): string => `This conversation is near the model's context limit (${Math.round(share * 100)}% used).`;
