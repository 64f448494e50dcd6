// The repo-wiki CLI for the GitHub Action (action.yml) and the pre-commit hooks (.pre-commit-hooks.yaml),
// which run from a checkout of this repository rather than from an installed package.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The root of this checkout of Repo Wiki. */
export const REPO_WIKI_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A failure to report on one line, with what to do next; the callers print it and exit 2. */
export class SetupError extends Error {}

/**
 * The CLI to run: $REPO_WIKI_CLI when set (a built dist/cli.js), else this checkout's dist/cli.js,
 * built first when it is missing: `npm ci` and esbuild, once per checkout. Their output goes to
 * stderr, so a caller's stdout carries only the CLI's.
 */
export function repoWikiCli() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) throw new SetupError(`Repo Wiki needs Node.js 20 or later; this is ${process.versions.node}. In a workflow, add actions/setup-node with node-version: 20 before this step.`);
  const given = process.env.REPO_WIKI_CLI;
  if (given) {
    if (!existsSync(given)) throw new SetupError(`REPO_WIKI_CLI names ${given}, which does not exist. Point it at a built dist/cli.js of Repo Wiki, or unset it.`);
    return path.resolve(given);
  }
  const cli = path.join(REPO_WIKI_ROOT, 'dist', 'cli.js');
  if (existsSync(cli)) return cli;
  process.stderr.write(`repo-wiki: building the command line in ${REPO_WIKI_ROOT} (npm ci, then esbuild); once per checkout.\n`);
  build('npm', ['ci', '--no-audit', '--no-fund']);
  build(process.execPath, ['esbuild.mjs', '--production']);
  if (!existsSync(cli)) throw new SetupError(`The build finished without ${cli}.`);
  return cli;
}

function build(command, args) {
  const result = spawnSync(command, args, { cwd: REPO_WIKI_ROOT, stdio: ['ignore', 2, 2] });
  if (result.error) throw new SetupError(`Could not run ${command}: ${result.error.message}. Repo Wiki is built with Node.js 20 and npm.`);
  if (result.status !== 0) throw new SetupError(`"${command} ${args.join(' ')}" failed in ${REPO_WIKI_ROOT} (exit ${result.status ?? result.signal}); its output is above.`);
}
