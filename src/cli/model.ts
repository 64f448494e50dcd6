import type { LanguageModel } from '../core/llm/languageModel';

/** What a terminal user sets for a model, said the same way by every command that needs one. */
export const MODEL_ENVIRONMENT = 'ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a gateway)';

/**
 * The Anthropic model the environment configures: ANTHROPIC_API_KEY, and ANTHROPIC_BASE_URL for a
 * gateway. Undefined without a key. The SDK (dist/llm.js beside the CLI) loads here, on first use.
 */
export async function anthropicModelFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<LanguageModel | undefined> {
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  if (!apiKey) return undefined;
  const { AnthropicModel } = require('../adapters/llm/anthropicModel') as typeof import('../adapters/llm/anthropicModel'); // llm.js beside the CLI; require, not import(): see mcp.ts
  return new AnthropicModel({ apiKey, baseURL: env.ANTHROPIC_BASE_URL?.trim() || undefined });
}
