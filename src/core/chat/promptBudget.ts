import { MODEL_DEFAULTS } from '../defaults';
import { defaultTraits } from '../llm/fallbackChain';
import { messageText, type ChatMessage, type LanguageModel, type ModelTraits, type SystemBlock, type ToolSpec } from '../llm/languageModel';

/** Tokens each part of a chat prompt may take. */
export interface PromptBudget {
  catalogTokens: number;
  pagesTokens: number;
  priorTurnsTokens: number;
  /** Input tokens the prompt may hold in all, tool results included (the window less the answer and the margin). */
  inputTokens: number;
  /** The longest answer asked for: at most a quarter of a small window. */
  outputTokens: number;
}

/** What a large window allows: the parts' sizes before there were small models. */
export const FULL_BUDGET = { catalogTokens: 4000, pagesTokens: 12_000, priorTurnsTokens: 8000 } as const;
const SHARES = { catalogTokens: 0.2, pagesTokens: 0.5, priorTurnsTokens: 0.3 } as const;
const MIN_OUTPUT_TOKENS = 256;

/**
 * The budget of a prompt for a model's window: the answer's tokens and `fixedTokens` (the
 * instructions, tool definitions, question and selection) come off first, with the model's token
 * margin; the rest is shared between the catalog, the pages and the prior turns, each at most
 * what a large window gives it.
 */
export function promptBudget(traits: Pick<ModelTraits, 'contextWindow' | 'tokenMargin'>, maxOutputTokens: number, fixedTokens: number): PromptBudget {
  const outputTokens = Math.min(maxOutputTokens, Math.max(MIN_OUTPUT_TOKENS, Math.floor(traits.contextWindow / 4)));
  const inputTokens = Math.max(0, Math.floor((traits.contextWindow - outputTokens) / (1 + traits.tokenMargin)));
  const room = Math.max(0, inputTokens - fixedTokens);
  return {
    catalogTokens: Math.min(FULL_BUDGET.catalogTokens, Math.floor(room * SHARES.catalogTokens)),
    pagesTokens: Math.min(FULL_BUDGET.pagesTokens, Math.floor(room * SHARES.pagesTokens)),
    priorTurnsTokens: Math.min(FULL_BUDGET.priorTurnsTokens, Math.floor(room * SHARES.priorTurnsTokens)),
    inputTokens,
    outputTokens,
  };
}

/** The same budget with each part scaled by `factor`, for a prompt that came out over. */
export function shrink(budget: PromptBudget, factor: number): PromptBudget {
  return {
    ...budget,
    catalogTokens: Math.floor(budget.catalogTokens * factor),
    pagesTokens: Math.floor(budget.pagesTokens * factor),
    priorTurnsTokens: Math.floor(budget.priorTurnsTokens * factor),
  };
}

/** The tokens of a whole request, counted by the model's tokenizer (its margin not included). */
export function requestTokens(count: (text: string) => number, request: { system: readonly SystemBlock[]; messages: readonly ChatMessage[]; tools?: readonly ToolSpec[] }): number {
  let tokens = 0;
  for (const block of request.system) tokens += count(block.text);
  for (const message of request.messages) tokens += count(messageText(message)) + 4; // each message's framing
  for (const tool of request.tools ?? []) tokens += count(`${tool.name} ${tool.description} ${JSON.stringify(tool.inputSchema)}`);
  return tokens;
}

/** Tries to bring an over-long prompt under its budget before it is sent anyway (and overflows with a clear error). */
const FIT_ATTEMPTS = 3;

/**
 * The budget that makes the prompt `build` fit the model's window, counted with its tokenizer:
 * the fixed parts are measured with every variable part empty, and a prompt that still comes out
 * over is shrunk in proportion.
 */
export function fitPrompt(
  traits: ModelTraits,
  maxOutputTokens: number,
  tools: readonly ToolSpec[],
  build: (maxPriorTurns: number, budget: PromptBudget) => { system: SystemBlock[]; messages: ChatMessage[] },
  maxPriorTurns = Number.MAX_SAFE_INTEGER,
): { budget: PromptBudget; tokens: number } {
  // The parts a budget does not change (instructions, tools, prior turns) are counted once.
  const counted = new Map<string, number>();
  const count = (text: string) => {
    let tokens = counted.get(text);
    if (tokens === undefined) counted.set(text, (tokens = traits.countTokens(text)));
    return tokens;
  };
  const measure = (budget: PromptBudget) => Math.ceil(requestTokens(count, { ...build(maxPriorTurns, budget), tools }) * (1 + traits.tokenMargin));
  const empty = { catalogTokens: 0, pagesTokens: 0, priorTurnsTokens: 0, inputTokens: 0, outputTokens: 0 };
  let budget = promptBudget(traits, maxOutputTokens, measure(empty));
  let tokens = measure(budget);
  for (let i = 0; i < FIT_ATTEMPTS && tokens > budget.inputTokens; i++) {
    budget = shrink(budget, (budget.inputTokens / tokens) * 0.9);
    tokens = measure(budget);
  }
  return { budget, tokens };
}

/** The model's traits, or, for one that cannot describe itself now, a large window with tools. */
export async function describeModel(model: LanguageModel, name: string, signal?: AbortSignal): Promise<ModelTraits> {
  if (!model.describe) return defaultTraits(name, MODEL_DEFAULTS.contextWindowTokens);
  // A provider that cannot be asked (its server is down) still gets a prompt: its request then fails and says why.
  return model.describe(signal).catch(() => defaultTraits(name, MODEL_DEFAULTS.contextWindowTokens));
}
