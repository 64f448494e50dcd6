import * as path from 'node:path';
import { readTemplate } from '../../adapters/wikiTemplate';
import { BUNDLE_DIR } from '../bundle';
import type { CliCommand } from '../command';
import { findWikiFolder } from '../wikiFolder';

/** `repo-wiki init`: copies the wiki template into .wiki/; an existing wiki is left as it is. */
export const init: CliCommand = {
  name: 'init',
  summary: 'create .wiki/ in the workspace (never overwrites a wiki)',
  usage: '',
  workspace: 'folder',
  formats: ['text', 'json'],
  options: [],
  async run({ wiki, format, value }, io) {
    // Run from a subfolder of a repository that has a wiki, init would start a second one there,
    // which every other command would then use from that folder down: asked for only by --workspace.
    const above = value('workspace') === undefined && !(await wiki.exists()) ? findWikiFolder(path.dirname(wiki.root)) : undefined;
    if (above) {
      io.err(`repo-wiki init: ${above} already has a wiki, and the other commands use it from here. To start a second wiki in ${wiki.root}, run repo-wiki init --workspace .`);
      return 2;
    }
    const result = await wiki.init(await readTemplate(path.join(BUNDLE_DIR, '..', 'wiki-template')));
    if (format === 'json') io.out(JSON.stringify(result));
    else io.out(result.created ? `Created ${result.files.length} files in ${wiki.dir}` : `${wiki.dir} already exists; nothing was changed.`);
    return 0;
  },
};
