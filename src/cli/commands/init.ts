import * as path from 'node:path';
import { readTemplate } from '../../adapters/wikiTemplate';
import { BUNDLE_DIR } from '../bundle';
import type { CliCommand } from '../command';

/** `repo-wiki init`: copies the wiki template into .wiki/; an existing wiki is left as it is. */
export const init: CliCommand = {
  name: 'init',
  summary: 'create .wiki/ in the workspace (never overwrites a wiki)',
  usage: '',
  workspace: 'folder',
  formats: ['text', 'json'],
  options: [],
  async run({ wiki, format }, io) {
    const result = await wiki.init(await readTemplate(path.join(BUNDLE_DIR, '..', 'wiki-template')));
    if (format === 'json') io.out(JSON.stringify(result));
    else io.out(result.created ? `Created ${result.files.length} files in ${wiki.dir}` : `${wiki.dir} already exists; nothing was changed.`);
    return 0;
  },
};
