import * as path from 'node:path';
import * as vscode from 'vscode';
import { watchFolder, type FolderWatch } from '../../adapters/files/folderWatch';
import { openWorkspace } from '../../adapters/workspace';
import type { FileSystem } from '../../core/ports';
import { isWikiContent, WIKI_DIR, type Wiki } from '../../core/wiki/wiki';

/** One Wiki per workspace folder (each folder of a multi-root workspace has its own), plus change events. */
export class WorkspaceWikis implements vscode.Disposable {
  private readonly wikis = new Map<string, Wiki>();
  private readonly files = new Map<Wiki, FileSystem>();
  private readonly changed = new vscode.EventEmitter<Wiki>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private readonly pagesWatches = new Map<string, FolderWatch>();

  /** Fires (debounced) when anything under a folder's `.wiki/` changes on disk. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly output: vscode.LogOutputChannel) {
    const watcher = vscode.workspace.createFileSystemWatcher(`**/${WIKI_DIR}/**`);
    const fire = (uri: vscode.Uri) => this.schedule(uri);
    this.disposables.push(
      watcher,
      watcher.onDidCreate(fire),
      watcher.onDidChange(fire),
      watcher.onDidDelete(fire),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.refreshContext()),
    );
    void this.refreshContext();
  }

  /** Wikis of folders that are on disk (virtual folders are not supported). */
  all(): Wiki[] {
    return (vscode.workspace.workspaceFolders ?? [])
      .filter((folder) => folder.uri.scheme === 'file')
      .map((folder) => this.forFolder(folder));
  }

  forFolder(folder: vscode.WorkspaceFolder): Wiki {
    const key = folder.uri.fsPath;
    let wiki = this.wikis.get(key);
    if (!wiki) {
      const workspace = openWorkspace(key);
      wiki = workspace.wiki;
      this.wikis.set(key, wiki);
      this.files.set(wiki, workspace.files);
    }
    return wiki;
  }

  /** The guarded file access of a wiki's workspace folder: every read of sources and cited code goes through it. */
  filesOf(wiki: Wiki): FileSystem {
    const files = this.files.get(wiki);
    if (!files) throw new Error(`No workspace folder is open at ${wiki.root}.`);
    return files;
  }

  forUri(uri: vscode.Uri): Wiki | undefined {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    return folder && folder.uri.scheme === 'file' ? this.forFolder(folder) : undefined;
  }

  async existing(): Promise<Wiki[]> {
    const wikis = this.all();
    const present = await Promise.all(wikis.map((wiki) => wiki.exists()));
    return wikis.filter((_, i) => present[i]);
  }

  /** The wiki an answer reads from, without asking: the active editor's, else the first that exists. */
  async preferred(): Promise<Wiki | undefined> {
    const existing = await this.existing();
    const active = vscode.window.activeTextEditor && this.forUri(vscode.window.activeTextEditor.document.uri);
    return active && existing.includes(active) ? active : existing[0];
  }

  /**
   * The wiki a command acts on: the only one, the active editor's, or the user's pick.
   * Undefined (after telling the user why) when there is none or the pick was cancelled.
   */
  async pick(options: { mustExist: boolean; purpose: string }): Promise<Wiki | undefined> {
    const all = this.all();
    if (!all.length) {
      void vscode.window.showWarningMessage('Repo Wiki needs a folder: open a folder or workspace first.', 'Open Folder')
        .then((choice) => choice && vscode.commands.executeCommand('workbench.action.files.openFolder'));
      return undefined;
    }
    const candidates = options.mustExist ? await this.existing() : all;
    if (!candidates.length) {
      void vscode.window.showWarningMessage('This workspace has no wiki yet.', 'Initialise wiki')
        .then((choice) => choice && vscode.commands.executeCommand('repoWiki.init'));
      return undefined;
    }
    if (candidates.length === 1) return candidates[0];
    const active = vscode.window.activeTextEditor && this.forUri(vscode.window.activeTextEditor.document.uri);
    if (active && candidates.includes(active)) return active;
    const picked = await vscode.window.showQuickPick(
      candidates.map((wiki) => ({ label: vscode.workspace.asRelativePath(wiki.root, true) || wiki.root, description: wiki.root, wiki })),
      { title: `Repo Wiki: ${options.purpose}`, placeHolder: 'Which folder\'s wiki?' },
    );
    return picked?.wiki;
  }

  async refreshContext(): Promise<void> {
    const existing = await this.existing();
    for (const wiki of existing) this.watchPages(wiki);
    await vscode.commands.executeCommand('setContext', 'repoWiki.hasWiki', existing.length > 0);
  }

  /**
   * VS Code's recursive watcher can miss a folder made just after its parent (`init`, a checkout),
   * and then never reports its files; so `pages/` also gets a watch of its own.
   */
  private watchPages(wiki: Wiki): void {
    if (this.pagesWatches.get(wiki.root)?.closed === false) return;
    const watch = watchFolder(wiki.pagesDir, (file) => this.schedule(vscode.Uri.file(file)), (error) => {
      this.output.warn(`Watching ${wiki.pagesDir} stopped (${error.message}); changes made outside VS Code may show late.`);
    });
    if (watch) this.pagesWatches.set(wiki.root, watch);
    else this.pagesWatches.delete(wiki.root);
  }

  /** Lets a command that just wrote announce it without waiting for the watcher. */
  notifyChanged(wiki: Wiki): void {
    this.changed.fire(wiki);
    void this.refreshContext();
  }

  private schedule(uri: vscode.Uri): void {
    const wiki = this.forUri(uri);
    if (!wiki || !isWikiContent(path.relative(wiki.dir, uri.fsPath).split(path.sep).join('/'))) return;
    clearTimeout(this.pending.get(wiki.root));
    this.pending.set(wiki.root, setTimeout(() => {
      this.pending.delete(wiki.root);
      this.notifyChanged(wiki);
    }, 150));
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    for (const watch of this.pagesWatches.values()) watch.close();
    for (const disposable of this.disposables) disposable.dispose();
  }
}
