import * as fs from 'node:fs';
import * as path from 'node:path';
import { isFolder } from '../adapters/files/fileKinds';

/** Changes come in bursts (a rename is two events, an editor's save several): one notice per burst. */
const SETTLE_MS = 150;

/**
 * Calls `changed` when the list of pages may have changed: a page added, removed or renamed, or
 * its title or summary edited (they are the list's names and descriptions). It watches the pages
 * folder; while there is none (no wiki yet, or a wiki being created), it watches the folders
 * above for one to appear. `signature` says what the list is now, so an edit that leaves it as it
 * was sends nothing. The list is first read at the first change, not at start, where the first
 * request reads it too: that first change is told whatever it was (a notice too many is harmless,
 * the client lists again).
 */
export class PageListWatcher {
  private watcher: fs.FSWatcher | undefined;
  private watchedDir: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private last: string | undefined;
  private closed = false;

  constructor(
    private readonly pagesDir: string,
    private readonly signature: () => Promise<string>,
    private readonly changed: () => void,
    private readonly log: (line: string) => void,
  ) {}

  start(): void {
    this.watch();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.watcher?.close();
  }

  /** The pages folder, or else the nearest folder above it that exists (the wiki, the workspace). */
  private watch(): void {
    this.watcher?.close();
    for (let dir = this.pagesDir; ; dir = path.dirname(dir)) {
      try {
        this.watcher = fs.watch(dir, () => this.settle());
        this.watchedDir = dir;
        this.watcher.on('error', (error) => this.log(`repo-wiki mcp: stopped watching ${dir} for page changes (${error.message}); clients are not told of new pages until restart.`));
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if ((code !== 'ENOENT' && code !== 'ENOTDIR') || path.dirname(dir) === dir) {
          this.log(`repo-wiki mcp: cannot watch ${dir} for page changes (${(error as Error).message}); clients are not told of new pages until restart.`);
          return;
        }
      }
    }
  }

  private settle(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(), SETTLE_MS);
  }

  private async check(): Promise<void> {
    if (this.closed) return;
    // A folder above the pages saw a change: the pages folder may exist now (or be gone).
    if (this.watchedDir !== this.pagesDir || !isFolder(this.pagesDir)) this.watch();
    try {
      const now = await this.signature();
      if (now === this.last) return;
      this.last = now;
      this.changed();
    } catch (error) {
      this.log(`repo-wiki mcp: could not list the pages after a change: ${(error as Error).message}`);
    }
  }
}
