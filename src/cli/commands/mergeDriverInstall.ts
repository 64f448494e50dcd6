import * as path from 'node:path';
import { BUNDLE_DIR } from '../bundle';
import type { CliCommand } from '../command';

/** `repo-wiki merge-driver install`: `index merge` as this clone's git merge driver for the catalog. */
export const mergeDriverInstall: CliCommand = {
  name: 'merge-driver install',
  summary: 'merge the wiki index page by page in this clone\'s merges',
  description: 'It configures `index merge` as git\'s merge driver for .wiki/index.json and index.md, so branches that add different pages merge without a conflict.',
  usage: '',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [],
  async run({ wiki, format }, io) {
    const { installMergeDriver } = await import('../../adapters/git/gitHooks');
    const result = await installMergeDriver(wiki.root, path.join(BUNDLE_DIR, 'cli.js'));
    if (format === 'json') io.out(JSON.stringify(result));
    else io.out(`Index merge driver ${result.driver}${result.attributes === 'added' ? '; .wiki/.gitattributes names it now (commit that change)' : ''}.`);
    return 0;
  },
};
