import * as vscode from 'vscode';
import { pageAgeTags, parsePageHistory, type PageHistory } from '../../core/pages/pageAge';
import type { Wiki } from '../../core/wiki/wiki';
import { loadGitModule } from '../common/heavyModules';

/**
 * Page ages from git history, one `git log` per wiki, cached until the wiki or HEAD changes.
 * Git does not run in Restricted Mode (a repository's config can run commands).
 */
export class PageAges implements vscode.Disposable {
  private readonly cache = new Map<string, Promise<Map<string, PageHistory>>>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly watcher = vscode.workspace.createFileSystemWatcher('**/.git/{HEAD,ORIG_HEAD,refs/heads/**}');

  constructor() {
    const forget = () => {
      this.cache.clear();
      this.changed.fire();
    };
    this.watcher.onDidChange(forget);
    this.watcher.onDidCreate(forget);
  }

  /** Slug → age tag ("stable for 3 months (+2)"); empty when git cannot tell. */
  async tags(wiki: Wiki, pages: readonly { slug: string; frontmatter: { corroborations?: number } }[]): Promise<Map<string, string>> {
    return pageAgeTags(await this.history(wiki), pages, new Date());
  }

  history(wiki: Wiki): Promise<Map<string, PageHistory>> {
    if (!vscode.workspace.isTrusted) return Promise.resolve(new Map());
    let entry = this.cache.get(wiki.root);
    if (!entry) {
      const { SimpleGitWiki } = loadGitModule();
      entry = new SimpleGitWiki(wiki.root).pagesLog().then((log) => parsePageHistory(log), () => new Map());
      this.cache.set(wiki.root, entry);
    }
    return entry;
  }

  /** A page was written: its "changed" date is only known again after the next commit, but drop the cache anyway. */
  invalidate(root: string): void {
    this.cache.delete(root);
  }

  dispose(): void {
    this.watcher.dispose();
    this.changed.dispose();
  }
}
