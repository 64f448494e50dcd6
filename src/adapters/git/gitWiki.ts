import { simpleGit, type SimpleGit } from 'simple-git';
import { WikiError } from '../../core/errors';
import type { WikiGit } from '../../core/ports';
import { WIKI_DIR } from '../../core/wiki/wiki';
import { headCommit, objectText } from './gitChanges';

/** Git for one workspace folder through simple-git; pathspecs are relative to that folder. */
export class SimpleGitWiki implements WikiGit {
  private readonly git: SimpleGit;

  constructor(private readonly folder: string) {
    this.git = simpleGit({ baseDir: folder, maxConcurrentProcesses: 2 });
  }

  async unavailableReason(): Promise<string | undefined> {
    const version = await this.git.version().catch(() => undefined);
    if (!version?.installed) return 'Git was not found on this machine, so the wiki cannot be committed.';
    if (!(await this.git.checkIsRepo().catch(() => false))) return `${this.folder} is not inside a git repository.`;
    return undefined;
  }

  /** The commit HEAD names, or undefined outside a repository or before its first commit. */
  headCommit(): Promise<string | undefined> {
    return headCommit(this.folder);
  }

  /** A file's text at HEAD (path relative to this folder), or undefined when HEAD has no such file. */
  async fileAtHead(relPath: string): Promise<string | undefined> {
    try {
      return await this.git.show([`HEAD:./${relPath}`]);
    } catch {
      return undefined;
    }
  }

  async logAtHead(): Promise<string | undefined> {
    try {
      return await this.git.show([`HEAD:./${WIKI_DIR}/log.jsonl`]);
    } catch {
      return undefined; // no HEAD yet, or the log was never committed
    }
  }

  async changedWikiPaths(): Promise<string[]> {
    const status = await this.git.raw(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', WIKI_DIR]);
    const paths: string[] = [];
    const fields = status.split('\0');
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i];
      if (!field) continue;
      paths.push(field.slice(3));
      if (field[0] === 'R' || field[0] === 'C') i++; // the rename's source path follows
    }
    return paths.sort();
  }

  async pagesLog(): Promise<string> {
    try {
      // --relative: names relative to this folder, even when the repository root is above it.
      return await this.git.raw(['log', '--format=%x00%ct', '--name-only', '--no-renames', '--relative', '--', `${WIKI_DIR}/pages`]);
    } catch {
      return ''; // no commits yet, or not a repository
    }
  }

  /** The text of a blob by its id, when this clone has it (an earlier version of a file that was committed or staged). */
  /** A blob's text; undefined when it is not in this clone's objects; its size when past the compare cap. */
  async blobText(blob: string): Promise<string | undefined | { tooLarge: number }> {
    if (!/^[0-9a-f]{40}$/.test(blob)) return undefined;
    return objectText(this.folder, blob);
  }

  async commitWiki(message: string): Promise<{ commit: string; files: string[] }> {
    const files = await this.changedWikiPaths();
    if (!files.length) throw new WikiError('nothing-to-commit', 'The wiki has no changes to commit.');
    await this.git.raw(['add', '--all', '--', WIKI_DIR]);
    // --only commits just these paths and leaves every other staged change in the index.
    await this.git.raw(['commit', '--only', '-m', message, '--', WIKI_DIR]);
    const commit = (await this.git.revparse(['HEAD'])).trim();
    return { commit, files };
  }
}
