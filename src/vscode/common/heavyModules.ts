import * as path from 'node:path';

type StoreModule = typeof import('../../adapters/store/workspaceStore');
type LlmModule = typeof import('../../adapters/llm/providers');
type GitModule = typeof import('../../adapters/git/gitWiki');

// sql.js, the model SDKs (Anthropic, OpenAI, Ollama) and simple-git are built as their own bundles next to extension.js (see esbuild.mjs)
// and required on first use, so neither is parsed at activation.
const load = <T>(bundle: string): T => require(path.join(__dirname, bundle)) as T;

export const loadStoreModule = (): StoreModule => load<StoreModule>('store.js');
export const loadLlmModule = (): LlmModule => load<LlmModule>('llm.js');
export const loadGitModule = (): GitModule => load<GitModule>('git.js');
