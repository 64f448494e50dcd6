import { AnswerEngine, type ModelChoice } from '../core/chat/chatService';
import type { Wiki } from '../core/wiki';

export const DEFAULT_MODEL = 'claude-sonnet-5-5';

export interface QueryOptions {
  offline: boolean;
  model: string;
  /** Streams answer text as it arrives (text format); JSON waits for the whole answer. */
  onText?(delta: string): void;
}

/** One question answered with the chat's retrieval and prompt, without a conversation. */
export async function queryWiki(wiki: Wiki, question: string, options: QueryOptions) {
  const pages = await wiki.loadPages();
  const chooseModel = async (): Promise<ModelChoice> => {
    const apiKey = process.env.ANTHROPIC_API_KEY?.trim();
    if (!apiKey) return { offline: 'no-key' };
    const { AnthropicModel } = await import('../adapters/llm/anthropicModel');
    return { model: new AnthropicModel({ apiKey, baseURL: process.env.ANTHROPIC_BASE_URL?.trim() || undefined }) };
  };
  const engine = new AnswerEngine({
    pages: async () => pages,
    chooseModel,
    settings: () => ({ model: options.model, maxTokens: 2048, maxPriorTurns: 0, priorAnswerChars: 500, pagesPerTurn: 5 }),
  });
  return engine.answer({ question, offline: options.offline }, { onText: (delta) => options.onText?.(delta) });
}
