/**
 * The defaults of the chat, the librarian lint and the model, shared by the extension (where
 * settings override them; package.json repeats them for the Settings UI) and the CLI.
 */

export const MODEL_DEFAULTS = {
  model: 'anthropic/claude-sonnet-5-5',
  /** Output tokens per request. */
  maxTokens: 2048,
  /** The model's context window, for the footer's warning as a conversation grows. */
  contextWindowTokens: 200_000,
} as const;

export const CHAT_DEFAULTS = {
  maxPriorTurns: 5,
  priorAnswerChars: 500,
  pagesPerTurn: 5,
  maxToolRounds: 8,
  /** Input tokens over all rounds of one answer; with caching most of them are cache reads. */
  toolTokenBudget: 150_000,
} as const;

export const LIBRARIAN_LINT_DEFAULTS = {
  maxPages: 20,
  maxTokens: 30_000,
  maxOutputTokens: 4096,
  /** Pages updated more recently than this many days are left out. */
  minAgeDays: 7,
} as const;

export const UPKEEP_DEFAULTS = {
  /** Stale and superseded pages untouched this many days are archived. */
  archiveAfterDays: 90,
} as const;
