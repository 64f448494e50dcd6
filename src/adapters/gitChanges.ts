import { simpleGit } from 'simple-git';
import { WikiError } from '../core/errors';

/**
 * Files under `folder` (relative to it, with `/`) that differ between the merge base of `ref` and
 * HEAD, and the working tree: what a pull request from `ref` changed, uncommitted edits and new
 * untracked files included. A rename counts as both of its paths.
 */
export async function filesChangedSince(folder: string, ref: string): Promise<string[]> {
  const git = simpleGit({ baseDir: folder });
  const hint = `Name a branch, tag or commit this clone has (a CI checkout may need "git fetch origin ${ref}" first).`;
  if (!ref || ref.startsWith('-')) throw new WikiError('unknown-revision', `"${ref}" is not a revision.`, hint);
  let base: string;
  try {
    base = (await git.raw(['merge-base', ref, 'HEAD'])).trim();
  } catch (error) {
    throw new WikiError('unknown-revision', `Git cannot compare with "${ref}": ${firstLine(error)}`, hint);
  }
  // --relative: paths relative to this folder, even when the repository root is above it.
  const changed = await git.raw(['diff', '--name-only', '--no-renames', '--relative', '-z', base, '--']);
  const untracked = await git.raw(['ls-files', '--others', '--exclude-standard', '-z']);
  return [...new Set([...changed.split('\0'), ...untracked.split('\0')].filter(Boolean))].sort();
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

/** A file's text at a commit (path relative to `folder`), or undefined when that commit has no such file. */
export async function fileAtCommit(folder: string, commit: string, relPath: string): Promise<string | undefined> {
  if (!/^[0-9a-f]{7,40}$/.test(commit)) return undefined;
  try {
    return await simpleGit({ baseDir: folder }).show([`${commit}:./${relPath}`]);
  } catch {
    return undefined; // the commit is not in this clone, or the file did not exist then
  }
}
