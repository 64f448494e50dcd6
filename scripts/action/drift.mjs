#!/usr/bin/env node
// The GitHub Action of action.yml: `repo-wiki drift --changed-since <base> --format github`, so the
// citations a pull request breaks are annotations on it. It reads what the runner sets, so it runs
// on a developer's machine too:
//   GITHUB_WORKSPACE          the repository's checkout (default: the current directory)
//   REPO_WIKI_WORKSPACE       the folder that holds .wiki/, relative to it (default: .)
//   REPO_WIKI_BASE_REF        what to compare with; else GITHUB_BASE_REF (a pull request's base
//                             branch), else REPO_WIKI_DEFAULT_BRANCH, else origin/HEAD
//   REPO_WIKI_SEMANTIC        true: add --semantic
//   REPO_WIKI_CLI             a built dist/cli.js to run (default: this checkout's, built when missing)
// Exit codes are the CLI's: 0 clean, 1 a citation in error, 2 a failure (said in an ::error line).
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { repoWikiCli, SetupError } from '../repoWikiCli.mjs';

try {
  process.exitCode = run();
} catch (error) {
  if (!(error instanceof SetupError)) throw error;
  console.log(`::error title=repo-wiki drift::${escapeData(error.message)}`);
  process.exitCode = 2;
}

function run() {
  const checkout = process.env.GITHUB_WORKSPACE || process.cwd();
  const folder = path.resolve(checkout, process.env.REPO_WIKI_WORKSPACE || '.');
  const semantic = process.env.REPO_WIKI_SEMANTIC || 'false';
  if (semantic !== 'true' && semantic !== 'false') throw new SetupError(`semantic is "${semantic}"; it takes true or false.`);
  const top = git(folder, ['rev-parse', '--show-toplevel']);
  if (top.status !== 0) throw new SetupError(`${folder} is not in a git checkout (${firstLine(top.stderr)}). Run actions/checkout first, and name the wiki's folder in the workspace input.`);

  const base = process.env.REPO_WIKI_BASE_REF || process.env.GITHUB_BASE_REF || process.env.REPO_WIKI_DEFAULT_BRANCH || originHead(folder);
  if (!base) throw new SetupError('There is no base to compare with: not a pull request, and no default branch known. Set the base-ref input.');
  const revision = baseRevision(folder, base);
  ensureMergeBase(folder, revision);

  const cli = repoWikiCli();
  const args = ['drift', '--workspace', folder, '--format', 'github', '--changed-since', revision, ...(semantic === 'true' ? ['--semantic'] : [])];
  const drift = spawnSync(process.execPath, [cli, ...args], { cwd: folder, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 256 * 1024 * 1024 });
  if (drift.error) throw new SetupError(`Could not run ${cli}: ${drift.error.message}`);
  // The CLI names pages relative to the wiki's folder; GitHub places annotations by paths from the repository's root.
  const prefix = path.relative(realpathSync(top.stdout.trim()), realpathSync(folder)).split(path.sep).join('/');
  const annotations = drift.stdout.split('\n').filter(Boolean).map((line) => (prefix ? line.replace(/^(::(?:error|warning|notice) file=)/, `$1${escapeProperty(`${prefix}/`)}`) : line));
  for (const line of annotations) console.log(line);
  const count = (level) => {
    const n = annotations.filter((line) => line.startsWith(`::${level} `)).length;
    return `${n} ${level}${n === 1 ? '' : 's'}`;
  };
  console.log(`repo-wiki drift since ${revision}: ${count('error')}, ${count('warning')}, ${count('notice')}.`);
  return drift.status ?? 2;
}

/** The revision to compare with: the remote's branch when there is one (a CI checkout has no local base branch), fetched when missing. */
function baseRevision(folder, base) {
  const remote = `refs/remotes/origin/${base}`;
  if (resolves(folder, remote)) return `origin/${base}`;
  if (resolves(folder, base)) return base;
  if (git(folder, ['remote', 'get-url', 'origin']).status === 0) {
    const fetched = git(folder, ['fetch', '--no-tags', 'origin', `+refs/heads/${base}:${remote}`]);
    if (fetched.status === 0) return `origin/${base}`;
  }
  throw new SetupError(`This checkout has no "${base}" to compare with, and it could not be fetched from origin. Name a branch, tag or commit in the base-ref input.`);
}

/** A shallow checkout (actions/checkout's default) lacks the merge base: its whole history is fetched then. */
function ensureMergeBase(folder, revision) {
  if (git(folder, ['merge-base', 'HEAD', revision]).status === 0) return;
  if (git(folder, ['rev-parse', '--is-shallow-repository']).stdout.trim() === 'true') {
    console.log('::notice title=repo-wiki drift::The checkout is shallow; fetching its history for the merge base (set fetch-depth: 0 on actions/checkout to skip this).');
    const branch = revision.startsWith('origin/') ? [`+refs/heads/${revision.slice('origin/'.length)}:refs/remotes/${revision}`] : [];
    const fetched = git(folder, ['fetch', '--no-tags', '--unshallow', 'origin', ...branch]);
    if (fetched.status !== 0) throw new SetupError(`Fetching the history failed (${firstLine(fetched.stderr)}). Set fetch-depth: 0 on actions/checkout.`);
    if (git(folder, ['merge-base', 'HEAD', revision]).status === 0) return;
  }
  throw new SetupError(`HEAD and ${revision} have no common commit in this checkout. Set fetch-depth: 0 on actions/checkout, or name another base in the base-ref input.`);
}

function originHead(folder) {
  const head = git(folder, ['symbolic-ref', '--short', 'refs/remotes/origin/HEAD']);
  return head.status === 0 ? head.stdout.trim().replace(/^origin\//, '') : undefined;
}

function resolves(folder, ref) {
  return git(folder, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).status === 0;
}

function git(cwd, args) {
  return spawnSync('git', args, { cwd, encoding: 'utf8' });
}

function firstLine(text) {
  return String(text).trim().split('\n')[0];
}

// GitHub Actions workflow-command escaping, as the CLI's --format github does it.
function escapeData(text) {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text) {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
