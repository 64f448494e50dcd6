import * as path from 'node:path';
import { BUNDLE_DIR } from '../bundle';
import type { CliCommand } from '../command';

/** `repo-wiki hook install`: the drift check in the repository's pre-commit hook. */
export const hookInstall: CliCommand = {
  name: 'hook install',
  summary: 'add the drift check to the git pre-commit hook',
  description: 'It runs on commits that touch .wiki/ or a cited file; an existing hook keeps running.',
  usage: '',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [],
  async run({ wiki, format }, io) {
    const { installPreCommitHook } = await import('../../adapters/git/gitHooks');
    const result = await installPreCommitHook(wiki.root, path.join(BUNDLE_DIR, 'cli.js'));
    if (format === 'json') io.out(JSON.stringify(result));
    else io.out(`${result.action === 'unchanged' ? 'Already installed' : `Pre-commit drift check ${result.action}`}: ${result.path}`);
    return 0;
  },
};
