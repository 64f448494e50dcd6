import { AnswerEngine, type ModelChoice } from '../core/chat/chatService';
import type { ToolStepEvent } from '../core/chat/toolLoop';
import { CHAT_DEFAULTS, MODEL_DEFAULTS } from '../core/defaults';
import type { WikiTool } from '../core/tools/tool';
import type { Wiki } from '../core/wiki/wiki';

export interface QueryOptions {
  offline: boolean;
  model: string;
  /** The read-only tools the model may call; with none the answer is one shot. */
  tools?: readonly WikiTool[];
  resolves?(citation: { path: string; symbol?: string }): Promise<boolean>;
  /** Streams answer text as it arrives (text format); JSON waits for the whole answer. */
  onText?(delta: string): void;
  onToolStep?(event: ToolStepEvent): void;
}

/** One question answered with the chat's retrieval, prompt and tool loop, without a conversation. */
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
    settings: () => ({ ...CHAT_DEFAULTS, model: options.model, maxTokens: MODEL_DEFAULTS.maxTokens, maxPriorTurns: 0 }),
    tools: () => options.tools ?? [],
    ...(options.resolves ? { resolves: options.resolves } : {}),
  });
  return engine.answer({ question, offline: options.offline }, { onText: (delta) => options.onText?.(delta), onToolStep: options.onToolStep });
}
