import * as path from 'node:path';
import { BUNDLE_DIR } from '../bundle';
import type { CliCommand } from '../command';

/** `repo-wiki merge-driver install`: `index merge` and `page merge` as this clone's git merge drivers for the catalog and the pages. */
export const mergeDriverInstall: CliCommand = {
  name: 'merge-driver install',
  summary: 'merge the index and pages in this clone\'s git merges',
  description: 'It configures `index merge` as git\'s merge driver for .wiki/index.json and index.md, so branches that add different pages merge without a conflict, and `page merge` for .wiki/pages/*.md, so branches that each re-stamped drift anchors merge them citation by citation.',
  usage: '',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [],
  async run({ wiki, format }, io) {
    const { installMergeDriver } = await import('../../adapters/git/gitHooks');
    const result = await installMergeDriver(wiki.root, path.join(BUNDLE_DIR, 'cli.js'));
    if (format === 'json') io.out(JSON.stringify(result));
    else io.out(`Index and page merge drivers ${result.driver}${result.attributes === 'added' ? '; .wiki/.gitattributes names them now (commit that change)' : ''}.`);
    return 0;
  },
};
