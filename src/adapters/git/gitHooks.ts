import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { isMissing, WikiError } from '../../core/errors';
import { hookBlock, installHook, shellQuote } from '../../core/git/preCommitHook';

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
  const existing = await readIfPresent(hook, 'the drift check was not added to it');
  const { text, action, shebang } = installHook(existing, hookBlock(relative, fallbackCli));
  if (action === 'foreign') {
    throw new WikiError('hook-not-shell', `${hook} is not a shell script (${shebang}), so the drift check was not added to it.`, 'Call "repo-wiki drift --format text" from that hook yourself (it exits 1 on drift errors), or from your hook manager. Nothing was changed.');
  }
  if (action !== 'unchanged') {
    await fs.mkdir(hooks, { recursive: true });
    await replaceFile(hook, text, 0o755);
  }
  await fs.chmod(hook, 0o755);
  return { path: hook, action };
}

/** The merge drivers: git's name for each, what it runs, and the `.gitattributes` lines (relative to .wiki/, under a comment) that name it. */
const MERGE_DRIVERS = [
  {
    name: 'repo-wiki-index', title: 'Repo Wiki index: merged page by page', args: 'index merge %O %A %B %P', files: ['index.json', 'index.md'],
    header: '# Generated from pages/: merged page by page by the Repo Wiki merge driver where it is installed.',
  },
  {
    name: 'repo-wiki-page', title: 'Repo Wiki page: anchors and fields merged one by one, the body as text', args: 'page merge --marker-size %L %O %A %B %P', files: ['pages/*.md'],
    header: '# Pages: drift anchors and fields merged one by one, the body as text, by the Repo Wiki page merge driver where it is installed.',
  },
];

/**
 * Configures the merge drivers in the repository (`git config`, local to this clone) for the index
 * (merged page by page) and the pages (anchors and fields merged one by one, the body as text), and
 * makes sure `.wiki/.gitattributes` names them (a change to commit, so that every clone with the
 * drivers uses them; clones without them fall back to git's text merge).
 */
export async function installMergeDriver(folder: string, fallbackCli?: string): Promise<{ driver: 'installed' | 'unchanged'; attributes: 'added' | 'present' }> {
  const command = (args: string) => [
    `if command -v repo-wiki >/dev/null 2>&1; then repo-wiki ${args}`,
    ...(fallbackCli ? [`elif [ -f ${shellQuote(fallbackCli)} ]; then node ${shellQuote(fallbackCli)} ${args}`] : []),
    'else exit 1; fi',
  ].join('; ');
  // Read before anything is configured: an attributes file that cannot be read stops it all.
  const file = path.join(folder, '.wiki', '.gitattributes');
  const text = (await readIfPresent(file, 'the merge driver was not installed')) ?? '';
  let installed = false;
  for (const driver of MERGE_DRIVERS) {
    // `git config --get` exits 1 when the key is not set: not installed yet.
    const current = await git(folder, 'config', '--get', `merge.${driver.name}.driver`).catch(() => '');
    if (current === command(driver.args)) continue;
    await git(folder, 'config', `merge.${driver.name}.name`, driver.title);
    await git(folder, 'config', `merge.${driver.name}.driver`, command(driver.args));
    installed = true;
  }
  const has = (line: string) => text.split('\n').some((existing) => existing.trim().startsWith(line));
  const added = MERGE_DRIVERS.map((driver) => ({ driver, lines: driver.files.map((name) => `${name} merge=${driver.name}`).filter((line) => !has(line)) })).filter(({ lines }) => lines.length);
  if (added.length) {
    const blocks = added.map(({ driver, lines }) => `${driver.header}\n${lines.join('\n')}\n`);
    await replaceFile(file, `${text}${text && !text.endsWith('\n') ? '\n' : ''}${blocks.join('\n')}`);
  }
  return { driver: installed ? 'installed' : 'unchanged', attributes: added.length ? 'added' : 'present' };
}

/**
 * A file's text, or undefined when there is none. One that is there but cannot be read (a folder,
 * no permission, an I/O error) is refused: taking it for absent would write over it.
 */
async function readIfPresent(file: string, refusal: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw new WikiError('write-failed', `${file} exists but could not be read (${(error as Error).message}), so ${refusal}.`, 'Make it a readable file, or move it aside, then run this again. Nothing was changed.');
  }
}

/** Writes through a temp file and a rename, so a crash never leaves half a hook or attributes file. */
async function replaceFile(file: string, text: string, mode?: number): Promise<void> {
  const temp = `${file}.repo-wiki-${process.pid}`;
  await fs.writeFile(temp, text, mode === undefined ? undefined : { mode });
  await fs.rename(temp, file);
}
