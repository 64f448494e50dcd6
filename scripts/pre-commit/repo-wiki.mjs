#!/usr/bin/env node
// The entry of the pre-commit framework's hooks (.pre-commit-hooks.yaml): `repo-wiki ARGS` with this
// checkout's CLI, built on first use, or $REPO_WIKI_CLI (see scripts/repoWikiCli.mjs).
import { spawnSync } from 'node:child_process';
import { repoWikiCli, SetupError } from '../repoWikiCli.mjs';

try {
  const cli = repoWikiCli();
  const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (result.error) throw new SetupError(`Could not run ${cli}: ${result.error.message}`);
  process.exitCode = result.status ?? 2;
} catch (error) {
  if (!(error instanceof SetupError)) throw error;
  console.error(`repo-wiki: ${error.message}`);
  process.exitCode = 2;
}
