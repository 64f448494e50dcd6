import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { WikiError } from '../core/errors';
import { hookBlock, installHook } from '../core/preCommitHook';

const run = promisify(execFile);

async function git(cwd: string, ...args: string[]): Promise<string> {
  try {
    return (await run('git', args, { cwd })).stdout.trim();
  } catch {
    throw new WikiError('git-unavailable', `${cwd} is not inside a git repository (or git is not installed).`, 'Run "git init" first, or open the repository folder.');
  }
}

/**
 * Installs the drift check into the repository's pre-commit hook (honouring core.hooksPath and
 * worktrees). An existing hook of someone else's keeps running after ours; re-running updates ours.
 */
export async function installPreCommitHook(folder: string, fallbackCli?: string): Promise<{ path: string; action: string }> {
  const top = await git(folder, 'rev-parse', '--show-toplevel');
  const hooks = path.resolve(folder, await git(folder, 'rev-parse', '--git-path', 'hooks'));
  const hook = path.join(hooks, 'pre-commit');
  const relative = path.relative(await fs.realpath(top), await fs.realpath(folder)).split(path.sep).join('/');
  const existing = await fs.readFile(hook, 'utf8').catch(() => undefined);
  const { text, action, shebang } = installHook(existing, hookBlock(relative, fallbackCli));
  if (action === 'foreign') {
    throw new WikiError('hook-not-shell', `${hook} is not a shell script (${shebang}), so the drift check was not added to it.`, 'Call "repo-wiki drift --format text" from that hook yourself (it exits 1 on drift errors), or from your hook manager. Nothing was changed.');
  }
  if (action !== 'unchanged') {
    await fs.mkdir(hooks, { recursive: true });
    const temp = `${hook}.repo-wiki-${process.pid}`;
    await fs.writeFile(temp, text, { mode: 0o755 });
    await fs.rename(temp, hook);
  }
  await fs.chmod(hook, 0o755);
  return { path: hook, action };
}
