import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConversationStore } from '../../core/chat/conversation';
import { loadStoreModule } from '../common/heavyModules';

/** Opens the conversation database on first use (sql.js never loads at activation) and closes it on exit. */
export class ConversationStoreHost implements vscode.Disposable {
  private opening?: Promise<ConversationStore>;

  constructor(private readonly context: vscode.ExtensionContext, private readonly output: vscode.LogOutputChannel) {}

  get(): Promise<ConversationStore> {
    this.opening ??= this.open().catch((error: unknown) => {
      this.opening = undefined; // let the next use try again, e.g. after the user freed the lock
      throw error;
    });
    return this.opening;
  }

  private async open(): Promise<ConversationStore> {
    // Per-workspace storage; with no folder open, the global storage keeps chats instead.
    const dir = (this.context.storageUri ?? this.context.globalStorageUri).fsPath;
    const { openConversationStore } = loadStoreModule();
    const { store, warnings } = await openConversationStore(dir, { wasmPath: path.join(this.context.extensionPath, 'dist', 'sql-wasm.wasm') });
    for (const warning of warnings) {
      this.output.warn(warning);
      void vscode.window.showWarningMessage(`Repo Wiki chat history: ${warning}`, 'Show Log').then((choice) => choice && this.output.show());
    }
    return store;
  }

  dispose(): void {
    void this.opening?.then((store) => store.close()).catch((error: Error) => this.output.warn(`Closing the conversation store: ${error.message}`));
  }
}
