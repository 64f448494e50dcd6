import type { ModelRef } from './modelRef';

/**
 * Context windows of well-known models, in tokens, by name prefix (longest first wins). Used when
 * the provider cannot tell (Ollama's /api/show and VS Code's maxInputTokens can) and no setting does.
 */
const KNOWN_WINDOWS: readonly [prefix: string, tokens: number][] = [
  ['claude-', 200_000],
  ['gpt-5', 400_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['qwen2.5-coder', 32_768],
  ['qwen3', 40_960],
  ['llama3.1', 131_072],
  ['llama3.2', 131_072],
  ['llama3.3', 131_072],
  ['llama3', 8_192],
  ['mistral', 32_768],
  ['codellama', 16_384],
  ['deepseek-coder-v2', 163_840],
  ['deepseek-r1', 131_072],
  ['gemma3', 131_072],
  ['phi4', 16_384],
];

const BY_LENGTH = [...KNOWN_WINDOWS].sort((a, b) => b[0].length - a[0].length);

/** The window of a well-known model, whatever serves it; an OpenRouter-style `vendor/model` is matched by its last part. */
export function knownContextWindow(ref: ModelRef): number | undefined {
  const name = ref.model.toLowerCase().split('/').at(-1) ?? '';
  return BY_LENGTH.find(([prefix]) => name.startsWith(prefix))?.[1];
}
