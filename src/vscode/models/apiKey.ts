import * as vscode from 'vscode';
import { KEY_ENVIRONMENT } from '../../core/llm/providerSettings';
import { PROVIDER_LABELS } from '../../core/llm/modelRef';

export type KeyedProvider = 'anthropic' | 'openai' | 'azure';

/** Each provider's key in SecretStorage; a key is only ever given to its own provider's adapter. */
const SECRET_KEYS: Record<KeyedProvider, string> = {
  anthropic: 'repoWiki.anthropicApiKey',
  openai: 'repoWiki.openaiApiKey',
  azure: 'repoWiki.azureOpenaiApiKey',
};
const PLACEHOLDERS: Record<KeyedProvider, string> = { anthropic: 'sk-ant-…', openai: 'sk-…', azure: 'the key of your Azure OpenAI resource' };

/** API keys, one per provider: SecretStorage first, then the provider's environment variable. Never in settings or logs. */
export class ApiKeys implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    const ours = new Set(Object.values(SECRET_KEYS));
    this.subscription = secrets.onDidChange((event) => ours.has(event.key) && this.changed.fire());
  }

  async get(provider: KeyedProvider = 'anthropic'): Promise<string | undefined> {
    return (await this.secrets.get(SECRET_KEYS[provider]))?.trim() || process.env[KEY_ENVIRONMENT[provider]!]?.trim() || undefined;
  }

  /** Asks for a key and stores it; true when one was stored. `optional`: an empty answer is fine (a local server). */
  async promptAndStore(provider: KeyedProvider = 'anthropic', optional = false): Promise<boolean> {
    const key = await vscode.window.showInputBox({
      title: `Repo Wiki: ${PROVIDER_LABELS[provider]} API key`,
      prompt: `Your ${PROVIDER_LABELS[provider]} API key${optional ? ' (leave empty if the server takes none)' : ''}. It is kept in VS Code's secret storage, never in settings or the repository, and sent only to this provider's endpoint.`,
      placeHolder: PLACEHOLDERS[provider],
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (optional && !value.trim() ? undefined : value.trim().length < 8 ? 'That is too short to be an API key.' : /\s/.test(value.trim()) ? 'An API key has no spaces.' : undefined),
    });
    if (key === undefined || (!key.trim() && !optional)) return false;
    if (key.trim()) await this.secrets.store(SECRET_KEYS[provider], key.trim());
    return true;
  }

  /** Clears every stored key. */
  async clear(): Promise<void> {
    for (const secret of Object.values(SECRET_KEYS)) await this.secrets.delete(secret);
    const inEnvironment = (Object.keys(SECRET_KEYS) as KeyedProvider[]).map((provider) => KEY_ENVIRONMENT[provider]!).filter((name) => process.env[name]);
    const fallback = inEnvironment.length ? ` ${inEnvironment.join(', ')} ${inEnvironment.length === 1 ? 'is' : 'are'} still set in the environment and will be used.` : ' Chat answers offline until you set up a model.';
    void vscode.window.showInformationMessage(`Repo Wiki: API keys cleared.${fallback}`);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
