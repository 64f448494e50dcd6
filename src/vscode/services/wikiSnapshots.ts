import * as vscode from 'vscode';
import { lintPages } from '../../core/lint/lint';
import { LintCode } from '../../core/lint/lintCodes';
import type { LintIssue, WikiIndex, WikiPage } from '../../core/model';
import type { Wiki } from '../../core/wiki/wiki';
import { buildIndex } from '../../core/index/wikiIndex';
import type { WorkspaceWikis } from './workspaceWikis';

/** Pages of one wiki read once, with the catalog and lint results derived from them (nothing written). */
export interface WikiSnapshot {
  readonly wiki: Wiki;
  readonly exists: boolean;
  readonly pages: WikiPage[];
  readonly index: WikiIndex;
  readonly issues: LintIssue[];
}

/** Reads each wiki once per change and shares the result with the tree, diagnostics and index upkeep. */
export class WikiSnapshots implements vscode.Disposable {
  private readonly cache = new Map<string, Promise<WikiSnapshot>>();
  private readonly updated = new vscode.EventEmitter<WikiSnapshot>();
  private readonly subscription: vscode.Disposable;

  readonly onDidUpdate = this.updated.event;

  constructor(private readonly wikis: WorkspaceWikis, private readonly output: vscode.LogOutputChannel) {
    this.subscription = wikis.onDidChange((wiki) => void this.reload(wiki));
  }

  get(wiki: Wiki): Promise<WikiSnapshot> {
    let snapshot = this.cache.get(wiki.root);
    if (!snapshot) {
      snapshot = this.read(wiki);
      this.cache.set(wiki.root, snapshot);
    }
    return snapshot;
  }

  async reload(wiki: Wiki): Promise<WikiSnapshot> {
    const snapshot = this.read(wiki);
    this.cache.set(wiki.root, snapshot);
    const result = await snapshot;
    if (this.cache.get(wiki.root) === snapshot) this.updated.fire(result);
    return result;
  }

  async reloadAll(): Promise<WikiSnapshot[]> {
    return Promise.all(this.wikis.all().map((wiki) => this.reload(wiki)));
  }

  private async read(wiki: Wiki): Promise<WikiSnapshot> {
    const started = Date.now();
    try {
      const exists = await wiki.exists();
      const pages = exists ? await wiki.loadPages() : [];
      // Problems of the wiki as a whole (a pages folder that leads out, a huge SCHEMA.md) come first.
      // Where the index upkeep rebuilds the index on every change, a stale one lasts only until it runs: no diagnostic for it.
      const keptCurrent = vscode.workspace.isTrusted && vscode.workspace.getConfiguration('repoWiki.index').get<boolean>('rebuildOnChange', true);
      const problems = exists ? await wiki.wikiProblems() : [];
      const refused = problems.some((problem) => problem.code === LintCode.PageOutsideWiki);
      const issues = exists ? [...problems, ...(keptCurrent || refused ? [] : await wiki.indexProblems(pages)), ...lintPages(pages)] : [];
      const snapshot = { wiki, exists, pages, index: buildIndex(pages), issues };
      this.output.debug(`Read ${pages.length} pages of ${wiki.root} in ${Date.now() - started} ms`);
      return snapshot;
    } catch (error) {
      this.output.error(`Could not read the wiki in ${wiki.root}: ${(error as Error).message}`);
      return { wiki, exists: false, pages: [], index: { version: 1, pages: [] }, issues: [] };
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.updated.dispose();
  }
}
