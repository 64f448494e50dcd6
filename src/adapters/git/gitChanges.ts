import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { simpleGit } from 'simple-git';
import { WikiError } from '../../core/errors';
import { MAX_COMPARED_BYTES } from '../../core/text/boundedDiff';

/**
 * Files under `folder` (relative to it, with `/`) that differ between the merge base of `ref` and
 * HEAD, and the working tree: what a pull request from `ref` changed, uncommitted edits and new
 * untracked files included. A rename counts as both of its paths.
 */
export async function filesChangedSince(folder: string, ref: string): Promise<string[]> {
  const hint = `Name a branch, tag or commit this clone has (a CI checkout may need "git fetch origin ${ref}" first).`;
  if (!ref || ref.startsWith('-')) throw new WikiError('unknown-revision', `"${ref}" is not a revision.`, hint);
  let changed: string;
  let untracked: string;
  try {
    // --merge-base: from where the branch left `ref` to the working tree, in one call; --relative: paths relative to this folder.
    [changed, untracked] = await Promise.all([
      gitOutput(folder, ['diff', '--merge-base', ref, '--name-only', '--no-renames', '--no-ext-diff', '--relative', '-z', '--']),
      gitOutput(folder, ['ls-files', '--others', '--exclude-standard', '-z']),
    ]);
  } catch (error) {
    throw new WikiError('unknown-revision', `Git cannot compare with "${ref}": ${firstLine((error as GitFailure).stderr || error)}`, hint);
  }
  return [...new Set([...changed.split('\0'), ...untracked.split('\0')].filter(Boolean))].sort();
}

/** A failed git command: its exit code (a number when git ran) and what it printed on stderr. */
interface GitFailure extends Error {
  code?: number | string;
  stderr: string;
}

/**
 * What a git command prints, run directly: on the `--changed-since` path, simple-git's queue costs
 * about 50 ms a call pair in a large repository, a tenth of the check's budget.
 */
function gitOutput(folder: string, args: readonly string[], input?: string, maxBuffer = 64 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    let unread: Error | undefined;
    const child = execFile('git', args, { cwd: folder, maxBuffer }, (error, stdout, stderr) => {
      if (error || unread) reject(Object.assign(error ?? unread!, { stderr: String(stderr) }));
      else resolve(stdout);
    });
    // A git that exits before reading its input fails this write (EPIPE): reported with its exit, above.
    child.stdin?.on('error', (error) => (unread = error));
    child.stdin?.end(input);
  });
}

function firstLine(error: unknown): string {
  return String((error as Error).message ?? error).trim().split('\n')[0];
}

/** The commit HEAD names, or undefined outside a repository or before its first commit. */
export async function headCommit(folder: string): Promise<string | undefined> {
  try {
    return (await simpleGit({ baseDir: folder }).revparse(['HEAD'])).trim() || undefined;
  } catch {
    return undefined; // not a repository, or no commit yet: stamps then record no commit
  }
}

/** A file's text at a commit (path relative to `folder`), undefined when that commit has no such file, or its size past the cap. */
export async function fileAtCommit(folder: string, commit: string, relPath: string): Promise<string | undefined | { tooLarge: number }> {
  if (!/^[0-9a-f]{7,40}$/.test(commit)) return undefined;
  return objectText(folder, `${commit}:./${relPath}`);
}

/**
 * A git object's text, its size asked first: an object past MAX_COMPARED_BYTES is never read (a
 * 535 MB blob once took 1.94 GB here), only reported. Undefined when the object is not in this
 * clone (git says so with exit 128, whatever its language).
 */
export async function objectText(folder: string, object: string): Promise<string | undefined | { tooLarge: number }> {
  let size: number;
  try {
    size = Number((await gitOutput(folder, ['cat-file', '-s', object])).trim());
  } catch {
    return undefined;
  }
  if (size > MAX_COMPARED_BYTES) return { tooLarge: size };
  return gitOutput(folder, ['cat-file', 'blob', object], undefined, MAX_COMPARED_BYTES + 1);
}

/**
 * The slugs of the tracked pages in `pagesDir` (a folder under `folder`) whose text, as it is in the
 * working tree, holds one of `needles`: one `git grep` rather than a read of every page, so a pull
 * request's check reads only those (an untracked page is itself a changed file). A candidate list:
 * the caller still reads each page through the guarded loader.
 */
export async function pagesMentioning(folder: string, pagesDir: string, needles: readonly string[]): Promise<string[]> {
  const patterns = needles.filter((needle) => needle && !needle.includes('\n'));
  if (!patterns.length) return [];
  const relDir = path.relative(folder, pagesDir).split(path.sep).join('/');
  let listed: string;
  try {
    listed = await gitOutput(folder, ['grep', '-l', '-z', '-F', '-f', '-', '--', relDir], patterns.join('\n'));
  } catch (error) {
    const { code, stderr, message } = error as GitFailure;
    if (code !== 1 || stderr.trim()) throw new WikiError('git-unavailable', `git grep could not search ${relDir}: ${stderr.trim() || message}`, 'Check that this folder is a git checkout, or run drift without --changed-since.');
    listed = ''; // no page mentions them
  }
  return listed.split('\0').map((file) => path.posix.basename(file)).filter((name) => name.endsWith('.md')).map((name) => name.slice(0, -3));
}
