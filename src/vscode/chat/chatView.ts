import { webviewHtml } from '../common/webviewHtml';
import * as vscode from 'vscode';
import { parseWebviewMessage, type HostToWebview, type WebviewToHost } from '../../shared/protocol';
import type { Services } from '../services/services';
import { DEFAULT_SELECTION_QUESTION, selectionContext } from './askAboutSelection';
import { ChatController } from './chatController';
import { cleanUp, cleanUpConversationsCommand, importConversationsCommand, retentionDays } from './conversationMaintenance';
import { ConversationStoreHost } from './conversationStoreHost';

/** The retention policy runs this long after activation, so opening the history never delays startup. */
const STARTUP_RETENTION_DELAY_MS = 5_000;

/** The chat webview: CSP with a nonce, every message validated, the work done by the controller. */
class ChatViewProvider implements vscode.WebviewViewProvider {
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

export const chatFeature = {
  activate(context: vscode.ExtensionContext, services: Services): { chat: ChatHooks } {
    const keys = services.models.keys;
    const stores = new ConversationStoreHost(context, services.output);
    const posted = new vscode.EventEmitter<HostToWebview>();
    let controller: ChatController | undefined;
    const post = (message: HostToWebview) => {
      provider.post(message);
      posted.fire(message);
      // Completes the walkthrough's "Ask a question" step.
      if (message.type === 'turnDone') void vscode.commands.executeCommand('setContext', 'repoWiki.askedQuestion', true);
    };
    const chatController = () => (controller ??= new ChatController(services, stores, post));
    const provider: ChatViewProvider = new ChatViewProvider(context.extensionUri, services, chatController);
    const refresh = () => controller && void controller.postState().catch(() => undefined);
    const refreshHistory = () => controller && void controller.postConversations().catch((error: Error) => services.output.warn(`Refreshing the chat history: ${error.message}`));
    const { citations, documentSymbols: symbols } = services;
    const store = () => stores.get();

    // Off by default; when set, conversations past it go at every start (filed ones are kept).
    const days = retentionDays();
    if (days) {
      const timer = setTimeout(() => {
        void store()
          .then((opened) => cleanUp(opened, { olderThanDays: days, includeFiled: false }, services.output))
          .then((outcome) => outcome.deleted.length && refreshHistory())
          .catch((error: Error) => services.output.warn(`Applying repoWiki.chat.retentionDays: ${error.message}`));
      }, STARTUP_RETENTION_DELAY_MS);
      context.subscriptions.push({ dispose: () => clearTimeout(timer) });
    }

    context.subscriptions.push(
      stores,
      posted,
      { dispose: () => controller?.dispose() },
      vscode.window.registerWebviewViewProvider('repoWiki.chat', provider),
      services.snapshots.onDidUpdate(refresh),
      keys.onDidChange(refresh),
      vscode.workspace.onDidChangeConfiguration((event) => event.affectsConfiguration('repoWiki.llm') && refresh()),
      vscode.workspace.onDidGrantWorkspaceTrust(refresh),
      vscode.commands.registerCommand('repoWiki.setApiKey', async () => (await keys.promptAndStore()) && refresh()),
      vscode.commands.registerCommand('repoWiki.clearApiKey', async () => {
        await keys.clear();
        refresh();
      }),
      vscode.commands.registerCommand('repoWiki.newConversation', async () => {
        await provider.reveal();
        provider.post({ type: 'conversation', conversation: null, turns: [] });
      }),
      vscode.commands.registerCommand('repoWiki.importConversations', async (files?: unknown) => {
        const outcome = await importConversationsCommand(store, services.output, files);
        if (outcome?.imported.length) refreshHistory();
        return outcome;
      }),
      vscode.commands.registerCommand('repoWiki.cleanUpConversations', async (policy?: unknown) => {
        const outcome = await cleanUpConversationsCommand(store, services.output, policy);
        if (outcome?.deleted.length) refreshHistory();
        return outcome;
      }),
      vscode.commands.registerCommand('repoWiki.askAboutSelection', async () => {
        const editor = vscode.window.activeTextEditor;
        if (!editor) {
          void vscode.window.showWarningMessage('Select some code in an editor first, then ask about it.');
          return;
        }
        const { context: selection, pages } = await selectionContext(services, citations, symbols, editor);
        await provider.reveal();
        chatController().attachSelection(selection, pages, DEFAULT_SELECTION_QUESTION);
      }),
    );
    return { chat: { send: (message) => chatController().handle(message), onDidPost: posted.event } };
  },
};
