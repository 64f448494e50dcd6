import { webviewHtml } from '../common/webviewHtml';
import * as vscode from 'vscode';
import { parseWebviewMessage, type HostToWebview, type WebviewToHost } from '../../shared/protocol';
import type { Services } from '../services/services';
import { ChatController } from './chatController';

/** The retention policy runs this long after activation, so opening the history never delays startup. */
export const STARTUP_RETENTION_DELAY_MS = 5_000;

/** The chat webview: CSP with a nonce, every message validated, the work done by the controller. */
export class ChatViewProvider implements vscode.WebviewViewProvider {
  private view?: vscode.WebviewView;
  /** Messages posted before the view exists or is ready are delivered once it says `ready`. */
  private queue: HostToWebview[] = [];
  private ready = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly services: Services,
    private readonly controller: () => ChatController,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    view.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    view.webview.html = this.html(view.webview);
    view.onDidDispose(() => {
      if (this.view === view) [this.view, this.ready] = [undefined, false];
    });
    view.webview.onDidReceiveMessage(async (raw: unknown) => {
      const message = parseWebviewMessage(raw);
      if (!message) {
        this.services.output.warn(`Dropped an invalid message from the chat view: ${JSON.stringify(raw)?.slice(0, 200)}`);
        return;
      }
      try {
        if (message.type === 'ready') {
          this.ready = true;
          await this.controller().postState();
          for (const queued of this.queue.splice(0)) void view.webview.postMessage(queued);
        } else if (message.type === 'runCommand') {
          await vscode.commands.executeCommand(message.command);
        } else {
          await this.controller().handle(message);
        }
      } catch (error) {
        this.services.output.error(`Chat: ${message.type} failed:`, error instanceof Error ? (error.stack ?? error.message) : String(error));
        this.post({ type: 'notice', message: `That did not work: ${error instanceof Error ? error.message : String(error)}` });
      }
    });
  }

  post(message: HostToWebview): void {
    if (this.view && this.ready) void this.view.webview.postMessage(message);
    else if (message.type === 'selection') this.queue.push(message); // the rest is re-sent on `ready`
  }

  async reveal(): Promise<void> {
    await vscode.commands.executeCommand('repoWiki.chat.focus');
  }

  private html(webview: vscode.Webview): string {
    return webviewHtml(webview, this.extensionUri, {
      title: 'Repo Wiki chat',
      styles: [['dist', 'codicons', 'codicon.css'], ['media', 'chat.css']],
      script: ['dist', 'webview.js'],
      body: '<div id="app"></div>',
    });
  }
}

/** What integration tests use to talk to the chat as its webview does. */
export interface ChatHooks {
  send(message: Exclude<WebviewToHost, { type: 'ready' | 'runCommand' }>): Promise<void>;
  readonly onDidPost: vscode.Event<HostToWebview>;
}
