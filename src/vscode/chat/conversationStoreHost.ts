import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AdoptCandidate } from '../../adapters/store/workspaceStore';
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
    const { openConversationStore, openWorkspaceConversationStore } = loadStoreModule();
    const wasmPath = path.join(this.context.extensionPath, 'dist', 'sql-wasm.wasm');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    let opened: { store: ConversationStore; warnings: string[]; notices?: string[] };
    if (folder?.scheme === 'file') {
      // The first folder's store in the user's data folder, shared with the repo-wiki CLI; VS Code's
      // workspace storage, where earlier versions kept it, is migrated from on first open.
      opened = await openWorkspaceConversationStore({ folder: folder.fsPath, legacyDir: this.context.storageUri?.fsPath, wasmPath, adopt: askToAdopt });
    } else {
      // No folder (or a remote one): the global storage keeps chats, as before.
      opened = await openConversationStore(this.context.globalStorageUri.fsPath, { wasmPath });
    }
    const { store, warnings, notices = [] } = opened;
    for (const notice of notices) this.output.info(notice);
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

/** A modal: the conversations of a moved folder of this repository are found; take them over here, or start fresh. */
async function askToAdopt(candidate: AdoptCandidate): Promise<boolean> {
  const choice = await vscode.window.showInformationMessage(
    'Repo Wiki found the chat history of this repository at a folder that no longer exists. Adopt it here?',
    { modal: true, detail: `${candidate.path} (moved or renamed?) had conversations. "Adopt" moves them to this folder; "Start fresh" keeps them where they are and starts an empty history here.` },
    'Adopt',
    'Start fresh',
  );
  return choice === 'Adopt';
}
