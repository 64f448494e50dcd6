import { promises as fs, type Dirent } from 'node:fs';
import * as path from 'node:path';
import { SYMBOL_FILE } from '../core/drift/citations';
import type { SymbolSearch } from '../core/drift/driftEngine';
import { isFileAccessError, isMissing, isNotAFile } from '../core/errors';
import { nextTurn, turnDue } from '../core/eventLoopTurns';
import type { FileSystem } from '../core/ports';
import { CodeSearchError } from '../core/tools/codeSearch';

// Dependencies and build output of every language drift parses: a symbol never moves into them.
const SKIP_DIRS = new Set(['node_modules', '.git', '.wiki', 'dist', 'out', 'build', 'coverage', '.vscode-test', '.next', '__pycache__', 'venv', 'site-packages', 'target', 'vendor']);
const MAX_FILES = 20000;
const MAX_BYTES = 2 * 1024 * 1024;

/** Whether the listing walks into a folder of this name. */
function walked(folder: string): boolean {
  return !SKIP_DIRS.has(folder) && !folder.startsWith('.');
}

/** Whether a file or folder (workspace-relative) may be in the listing or hold listed files: a change anywhere else leaves the listing as it is. */
export function mayBeListed(relPath: string): boolean {
  const names = relPath.split('/');
  const last = names.pop()!;
  return names.every(walked) && (walked(last) || SYMBOL_FILE.test(last));
}

/** Files that contain any of some words, found by a faster tool than reading each file here (ripgrep). */
export type TextFinder = (words: readonly string[]) => Promise<string[]>;

/** Text search over the workspace's source files in the languages drift parses; the file list is listed once per instance. */
export class WorkspaceSearch implements SymbolSearch {
  private listing?: Promise<string[]>;

  constructor(private readonly root: string, private readonly files: FileSystem, private readonly finder?: TextFinder) {}

  async filesContaining(words: string | readonly string[], only?: (file: string) => boolean): Promise<string[]> {
    const listed = await this.listed();
    // Only the files of the language asked for are read: a TS symbol's search reads no Python.
    const files = only ? listed.filter(only) : listed;
    const wanted = typeof words === 'string' ? [words] : words;
    if (this.finder) {
      // The finder searches every file at once; the listing still decides which count (skipped folders, the language).
      const inListing = new Set(files);
      try {
        return (await this.finder(wanted)).filter((file) => inListing.has(file)).sort();
      } catch (error) {
        // Reading the files here gives the same answer, only slower.
        if (!(error instanceof CodeSearchError)) throw error;
      }
    }
    const hits: string[] = [];
    const decoder = new TextDecoder();
    const matches = async (file: string) => {
      let bytes: Uint8Array;
      try {
        bytes = await this.files.readFile(path.join(this.root, file), { maxBytes: MAX_BYTES });
      } catch (error) {
        // Deleted since the listing, too large, a link out: not a place the symbol moved to.
        if (isNotAFile(error) || isFileAccessError(error)) return;
        throw error;
      }
      const text = decoder.decode(bytes);
      if (wanted.some((word) => text.includes(word))) hits.push(file);
    };
    // Bounded concurrency: thousands of parallel opens would hit the file descriptor limit.
    // Reads may be synchronous (CLI, MCP, drift worker): between batches, the event loop gets its turns.
    for (let i = 0; i < files.length; i += 64) {
      while (turnDue()) await nextTurn();
      await Promise.all(files.slice(i, i + 64).map(matches));
    }
    return hits.sort();
  }

  /** The listed files in one folder (workspace-relative), for a symbol whose file was renamed. */
  async filesIn(folder: string): Promise<string[]> {
    const files = await this.listed();
    const prefix = folder ? `${folder}/` : '';
    return files.filter((file) => file.startsWith(prefix) && !file.slice(prefix.length).includes('/'));
  }

  /** Every listed source file (workspace-relative): the files the repository map ranks. */
  sourceFiles(): Promise<string[]> {
    return this.listed();
  }

  /** Forget the file list (files were created, deleted or renamed). */
  reset(): void {
    this.listing = undefined;
  }

  /** The file list, listed once; a listing that failed is not kept, so the next search lists again. */
  private listed(): Promise<string[]> {
    if (!this.listing) {
      const listing = (this.listing = this.list());
      listing.catch(() => this.listing === listing && (this.listing = undefined));
    }
    return this.listing;
  }

  /**
   * Depth first, in the order each folder lists its entries, as far as MAX_FILES. A folder's
   * subfolders are all asked for their entries as soon as it is listed, and walked in order: the
   * walk does not wait on one folder after another (a 311-folder corpus: 40 to 80 ms, then 20 to 45).
   */
  private async list(): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string, listing: Promise<Listed>): Promise<void> => {
      const listed = await listing;
      if ('error' in listed) throw listed.error;
      const subfolders = new Map<string, Promise<Listed>>();
      for (const entry of listed.entries) {
        if (entry.isDirectory() && walked(entry.name)) subfolders.set(entry.name, listFolder(path.join(this.root, dir, entry.name)));
      }
      for (const entry of listed.entries) {
        if (out.length >= MAX_FILES) return;
        const rel = dir ? `${dir}/${entry.name}` : entry.name;
        const subfolder = subfolders.get(entry.name);
        if (subfolder) await walk(rel, subfolder);
        else if (entry.isFile() && SYMBOL_FILE.test(entry.name)) out.push(rel);
      }
    };
    await walk('', listFolder(this.root));
    return out;
  }
}

/** A folder's entries, or why they could not be listed. */
type Listed = { entries: Dirent[] } | { error: unknown };

/**
 * A folder's entries for the walk: none when it is gone since its parent was listed, or when this
 * user may not list it (a search skips what it cannot read, as ripgrep does). Any other failure
 * is returned, not thrown: a subfolder listed ahead of the walk fails the listing when the walk
 * reaches it, and one it never reaches (MAX_FILES, an earlier failure) fails no one.
 */
async function listFolder(dir: string): Promise<Listed> {
  try {
    return { entries: await fs.readdir(dir, { withFileTypes: true }) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isMissing(error) || code === 'EACCES' || code === 'EPERM') return { entries: [] };
    return { error };
  }
}
