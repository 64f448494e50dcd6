import { MODEL_DEFAULTS } from '../core/defaults';
import { assembleChain, type ChainOffer } from '../core/llm/modelChain';
import type { ProviderSettings } from '../core/llm/providerSettings';

/** What a terminal user sets for a model, said the same way by every command that needs one. */
export const MODEL_ENVIRONMENT = '--model provider/model (or REPO_WIKI_MODEL) and that provider\'s key: ANTHROPIC_API_KEY, OPENAI_API_KEY or AZURE_OPENAI_API_KEY (Ollama needs none)';

const ALL_FAILED = 'Retry later, or name other models with --model and --fallback (see repo-wiki help query).';

/** The models a command asks: --model (else REPO_WIKI_MODEL, else the default), then each --fallback. */
export interface ModelFlags {
  model?: string;
  fallbacks?: readonly string[];
}

export function modelNames(flags: ModelFlags, env: NodeJS.ProcessEnv = process.env): string[] {
  return [flags.model?.trim() || env.REPO_WIKI_MODEL?.trim() || MODEL_DEFAULTS.model, ...(flags.fallbacks ?? [])];
}

/** Keys and endpoints from the usual environment variables of each provider. */
export function providerSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  return {
    anthropic: { apiKey: env.ANTHROPIC_API_KEY, baseUrl: env.ANTHROPIC_BASE_URL },
    openai: { apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL },
    azure: { apiKey: env.AZURE_OPENAI_API_KEY, endpoint: env.AZURE_OPENAI_ENDPOINT, apiVersion: env.OPENAI_API_VERSION },
    ollama: { host: env.OLLAMA_HOST },
    contextWindow: Number(env.REPO_WIKI_CONTEXT_WINDOW) || undefined,
  };
}

/**
 * The fallback chain the flags and the environment name, or the models that could not be had
 * (no key). The SDKs (dist/llm.js beside the CLI) load here, on first use. Throws for a name with
 * an unknown provider, or an endpoint that is not a URL.
 */
export async function modelFromEnv(flags: ModelFlags, env: NodeJS.ProcessEnv = process.env): Promise<ChainOffer> {
  const { providerAdapter } = require('../adapters/llm/providers') as typeof import('../adapters/llm/providers'); // llm.js beside the CLI; require, not import(): see mcp.ts
  const settings = providerSettingsFromEnv(env);
  return assembleChain({ models: modelNames(flags, env), contextWindow: settings.contextWindow }, async (ref) => providerAdapter(ref, settings), { allFailed: ALL_FAILED });
}

/** Why no model answered, for a terminal: each model named and why it could not be used. */
export function missingModels(offer: Extract<ChainOffer, { missing: unknown }>): string {
  return offer.missing.map((attempt) => `${attempt.model}: ${attempt.message}`).join('; ');
}
