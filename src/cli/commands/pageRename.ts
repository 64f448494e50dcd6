import type { CliCommand } from '../command';
import { usageLine } from '../help';

/** `repo-wiki page rename OLD NEW`: renames a page and every link to it; refused (exit 2, nothing changed) when NEW is invalid or taken. */
export const pageRename: CliCommand = {
  name: 'page rename',
  summary: 'rename a page and every [[link]] to it',
  description: 'Refused, with nothing changed, when NEW is not a valid slug or is taken.',
  usage: 'OLD NEW',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [],
  async run({ wiki, positionals, format }, io) {
    if (positionals.length !== 2) {
      io.err(usageLine(pageRename));
      return 2;
    }
    const { renamePage } = await import('../../core/authoring');
    const result = await renamePage(wiki, positionals[0], positionals[1]);
    if (format === 'json') io.out(JSON.stringify(result));
    else io.out(`Renamed [[${result.from}]] to [[${result.to}]]; ${result.links} link${result.links === 1 ? '' : 's'} in ${result.updated.length} page${result.updated.length === 1 ? '' : 's'} updated.`);
    return 0;
  },
};
