import type { CliCommand } from '../command';
import { issueLine, wikiErrors } from '../issues';

/** `repo-wiki index rebuild`: the catalog regenerated from the pages. */
export const indexRebuild: CliCommand = {
  name: 'index rebuild',
  summary: 'regenerate .wiki/index.json and index.md from the pages',
  usage: '',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [],
  async run({ wiki, format }, io) {
    // Say why before the rebuild refuses: a pages folder that leads out is never read, nor indexed as empty.
    if (format === 'text') for (const problem of await wikiErrors(wiki)) io.err(issueLine(problem));
    const { pages, changed } = await wiki.rebuildIndex();
    if (format === 'json') io.out(JSON.stringify({ pages: pages.length, changed }));
    else io.out(`Index rebuilt from ${pages.length} pages${changed ? '' : ' (already current)'}.`);
    return 0;
  },
};
