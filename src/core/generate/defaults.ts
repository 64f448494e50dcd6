import { INGEST_DEFAULTS } from '../ingest/sources';

/** Input and output tokens a generate run may spend unless told otherwise (--budget, repoWiki.generate.budget). */
export const DEFAULT_GENERATE_BUDGET = 200_000;

/** One request's output, and how far a page's tool loop may go, for the CLI and the extension alike. */
export const GENERATE_LIMITS = { maxTokens: INGEST_DEFAULTS.maxOutputTokens, maxToolRounds: 8, toolTokenBudget: 60_000 } as const;
