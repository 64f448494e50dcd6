import * as vscode from 'vscode';
import type { ProposalContext, ProposalList } from '../../core/proposals';
import type { Wiki } from '../../core/wiki/wiki';
import { WIKI_DIR } from '../../core/wiki/wiki';
import type { WorkspaceCores } from './workspaceCores';

/**
 * The pending page proposals agents made (over MCP or as VS Code tools), per wiki. They live in
 * git-ignored local state (`.wiki/.cache/proposals/`), which the wiki's own watcher ignores, so
 * they have a watcher of their own.
 */
export class WikiProposals implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly watcher = vscode.workspace.createFileSystemWatcher(`**/${WIKI_DIR}/.cache/proposals/*.json`);
  /** Each wiki's list, read once per change: the Pages view asks on every refresh. */
  private readonly lists = new Map<string, Promise<ProposalList>>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly cores: WorkspaceCores) {
    for (const event of [this.watcher.onDidCreate, this.watcher.onDidChange, this.watcher.onDidDelete]) event(() => this.notifyChanged());
  }

  /** What proposing, reviewing and accepting read and write through, for one wiki. */
  context(wiki: Wiki): ProposalContext {
    return this.cores.of(wiki).proposals;
  }

  list(wiki: Wiki): Promise<ProposalList> {
    let list = this.lists.get(wiki.root);
    if (!list) {
      list = this.context(wiki).store.list();
      this.lists.set(wiki.root, list);
      // A failed read is not kept: the next ask reads again (the caller reports the failure).
      list.catch(() => this.lists.delete(wiki.root));
    }
    return list;
  }

  /** Lets a command that just proposed, accepted or rejected refresh the view at once. */
  notifyChanged(): void {
    this.lists.clear();
    this.changed.fire();
  }

  dispose(): void {
    this.watcher.dispose();
    this.changed.dispose();
  }
}
