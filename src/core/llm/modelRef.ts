/** Models are named `provider/model`, as LiteLLM names them: `ollama/qwen2.5-coder:7b`, `azure/my-deployment`. */

export const PROVIDERS = ['anthropic', 'openai', 'azure', 'ollama', 'vscode'] as const;
export type ProviderId = (typeof PROVIDERS)[number];

export interface ModelRef {
  provider: ProviderId;
  /** As the provider names it; may itself hold `/` (an OpenRouter model) or `:` (an Ollama tag). */
  model: string;
}

export const PROVIDER_LABELS: Record<ProviderId, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI or an OpenAI-compatible server',
  azure: 'Azure OpenAI',
  ollama: 'Ollama',
  vscode: 'a VS Code language model',
};

const EXAMPLES = 'anthropic/claude-sonnet-5-5, openai/gpt-4.1, azure/DEPLOYMENT, ollama/qwen2.5-coder:7b or vscode/FAMILY';

export class ModelRefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelRefError';
  }
}

/**
 * `provider/model` parsed. A name without a provider is a Claude model (what `repoWiki.llm.model`
 * held before providers). `vscode` alone takes the first model VS Code offers.
 */
export function parseModelRef(text: string): ModelRef {
  const name = text.trim();
  if (!name) throw new ModelRefError(`No model named. Name one as provider/model, e.g. ${EXAMPLES}.`);
  if (/\s/.test(name)) throw new ModelRefError(`"${name}" is not a model name: it has spaces. Name one as provider/model, e.g. ${EXAMPLES}.`);
  if (name === 'vscode') return { provider: 'vscode', model: '' };
  const slash = name.indexOf('/');
  if (slash < 0) return { provider: 'anthropic', model: name };
  const provider = name.slice(0, slash);
  const model = name.slice(slash + 1);
  if (!isProvider(provider)) throw new ModelRefError(`Unknown provider "${provider}" in "${name}". The providers are ${PROVIDERS.join(', ')}: e.g. ${EXAMPLES}.`);
  if (!model && provider !== 'vscode') throw new ModelRefError(`"${name}" names no model after "${provider}/", e.g. ${EXAMPLES}.`);
  return { provider, model };
}

export function formatModelRef(ref: ModelRef): string {
  return `${ref.provider}/${ref.model}`;
}

export function isProvider(text: string): text is ProviderId {
  return (PROVIDERS as readonly string[]).includes(text);
}

/**
 * The model the settings name. Before providers, `repoWiki.llm.provider: vscode` picked a VS Code
 * model by `vscodeModelFamily`; it still does while `repoWiki.llm.model` is left unset.
 */
export function configuredModel(settings: { model?: string; modelIsSet: boolean; legacyProvider?: string; vscodeFamily?: string; defaultModel: string }): string {
  if (settings.legacyProvider === 'vscode' && !settings.modelIsSet) return `vscode/${settings.vscodeFamily?.trim() ?? ''}`;
  return settings.model?.trim() || settings.defaultModel;
}
