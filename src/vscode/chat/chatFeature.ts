import { setUpModel } from '../models/setUpModel';
import * as vscode from 'vscode';
import { type HostToWebview } from '../../shared/protocol';
import type { Services } from '../services/services';
import { DEFAULT_SELECTION_QUESTION, selectionContext } from './askAboutSelection';
import { ChatController } from './chatController';
import { STARTUP_RETENTION_DELAY_MS, ChatViewProvider, ChatHooks } from './chatView';
import { cleanUp, cleanUpConversationsCommand, importConversationsCommand, retentionDays } from './conversationMaintenance';
import { ConversationStoreHost } from './conversationStoreHost';

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
    const refresh = () => controller && void controller.postState().catch((error: Error) => services.output.warn(`Refreshing the chat: ${error.message}`));
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
      vscode.commands.registerCommand('repoWiki.setApiKey', async () => {
        if (!(await keys.promptAndStore())) return;
        void vscode.window.showInformationMessage('Repo Wiki: Anthropic API key saved.');
        refresh();
      }),
      vscode.commands.registerCommand('repoWiki.setUpModel', async () => (await setUpModel(services.models, services.output)) && refresh()),
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
