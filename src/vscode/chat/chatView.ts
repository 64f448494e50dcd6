import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { parseWebviewMessage, type HostToWebview } from '../../shared/protocol';
import type { Services } from '../services';

/** The chat view's shell: CSP with a nonce, validated messages. The chat itself lands in a later release. */
class ChatViewProvider implements vscode.WebviewViewProvider {
  private view?: vscode.WebviewView;

  constructor(private readonly extensionUri: vscode.Uri, private readonly services: Services) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    view.webview.html = this.html(view.webview);
    view.webview.onDidReceiveMessage(async (raw: unknown) => {
      const message = parseWebviewMessage(raw);
      if (!message) {
        this.services.output.warn(`Dropped an invalid message from the chat view: ${JSON.stringify(raw)?.slice(0, 200)}`);
        return;
      }
      if (message.type === 'ready') await this.postState();
      else await vscode.commands.executeCommand(message.command);
    });
  }

  async postState(): Promise<void> {
    if (!this.view) return;
    const state: HostToWebview = { type: 'state', hasWiki: (await this.services.wikis.existing()).length > 0, trusted: vscode.workspace.isTrusted };
    await this.view.webview.postMessage(state);
  }

  private html(webview: vscode.Webview): string {
    const nonce = randomBytes(16).toString('base64');
    const asset = (...parts: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...parts));
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource}; font-src ${webview.cspSource}; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${asset('media', 'chat.css')}" rel="stylesheet">
<title>Repo Wiki chat</title>
</head>
<body>
<main aria-label="Repo Wiki chat">
<p id="status" role="status">Loading…</p>
<div id="actions"></div>
</main>
<script nonce="${nonce}" src="${asset('dist', 'webview.js')}"></script>
</body>
</html>`;
  }
}

export const chatFeature = {
  activate(context: vscode.ExtensionContext, services: Services): void {
    const provider = new ChatViewProvider(context.extensionUri, services);
    context.subscriptions.push(
      vscode.window.registerWebviewViewProvider('repoWiki.chat', provider),
      services.snapshots.onDidUpdate(() => void provider.postState()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void provider.postState()),
    );
  },
};
