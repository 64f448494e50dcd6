import * as vscode from 'vscode';

const SECRET_KEY = 'repoWiki.anthropicApiKey';

/** The Anthropic API key: SecretStorage first, then ANTHROPIC_API_KEY. Never in settings or logs. */
export class ApiKeys implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((event) => event.key === SECRET_KEY && this.changed.fire());
  }

  async get(): Promise<string | undefined> {
    return (await this.secrets.get(SECRET_KEY))?.trim() || process.env.ANTHROPIC_API_KEY?.trim() || undefined;
  }

  /** Asks for a key and stores it; true when one was stored. */
  async promptAndStore(): Promise<boolean> {
    const key = await vscode.window.showInputBox({
      title: 'Repo Wiki: Set API key',
      prompt: 'Your Anthropic API key. It is kept in VS Code\'s secret storage, never in settings or the repository.',
      placeHolder: 'sk-ant-…',
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim().length < 8 ? 'That is too short to be an API key.' : /\s/.test(value.trim()) ? 'An API key has no spaces.' : undefined),
    });
    if (!key) return false;
    await this.secrets.store(SECRET_KEY, key.trim());
    void vscode.window.showInformationMessage('Repo Wiki: API key saved. Chat answers now come from the model.');
    return true;
  }

  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_KEY);
    const fallback = process.env.ANTHROPIC_API_KEY ? ' ANTHROPIC_API_KEY is still set in the environment and will be used.' : ' Chat answers offline until you set a key.';
    void vscode.window.showInformationMessage(`Repo Wiki: API key cleared.${fallback}`);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
