import { execFile } from 'node:child_process';

/**
 * What identifies a repository wherever its folder is: its root commit(s), and the origin remote's
 * URL when it has one. A folder that is no git repository (or has no commit yet) has no identity,
 * and its conversations can only be found again at the same path.
 */
export interface WorkspaceIdentity {
  rootCommits: string[];
  remote?: string;
}

const GIT_TIMEOUT_MS = 5_000;

export async function workspaceIdentity(folder: string): Promise<WorkspaceIdentity | undefined> {
  const roots = await git(folder, ['rev-list', '--max-parents=0', 'HEAD']);
  const rootCommits = (roots ?? '').split('\n').filter((line) => /^[0-9a-f]{40,64}$/.test(line)).sort();
  if (!rootCommits.length) return undefined;
  const remote = (await git(folder, ['config', '--get', 'remote.origin.url']))?.trim();
  return { rootCommits, ...(remote ? { remote } : {}) };
}

/** Same repository: the same root commits, and the same remote when both know one (a fork shares its roots). */
export function sameRepository(a: WorkspaceIdentity, b: WorkspaceIdentity): boolean {
  if (a.rootCommits.join() !== b.rootCommits.join()) return false;
  return !a.remote || !b.remote || a.remote === b.remote;
}

/** What git prints, or undefined when git is missing, fails, or takes too long: then there is no identity. */
function git(folder: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd: folder, timeout: GIT_TIMEOUT_MS, maxBuffer: 1024 * 1024, windowsHide: true }, (error, stdout) => resolve(error ? undefined : stdout));
  });
}
