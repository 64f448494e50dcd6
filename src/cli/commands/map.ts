import { DEFAULT_MAP_TOKENS } from '../../core/map/repoMap';
import type { CliCommand } from '../command';

/** `repo-wiki map`: the highest-ranked source files and their key declarations, within a token budget. */
export const map: CliCommand = {
  name: 'map',
  summary: 'the most used source files and their declarations',
  description:
    'Ranks the source files in the languages drift parses by how much the rest of the code uses them (PageRank over the references between files, as Aider ranks them) and prints the highest-ranked ones with their most-used declarations, within the token budget (tokens counted as characters / 4, rounded up). ' +
    '--focus ranks the code around files, folders or names first. The json format gives each file\'s rank and declarations, and names the files skipped (too large, binary, refused, nested too deeply).',
  usage: '',
  workspace: 'wiki-if-any',
  formats: ['text', 'json'],
  options: [
    { name: 'tokens', value: 'N', default: String(DEFAULT_MAP_TOKENS), description: 'the most tokens the map may take' },
    { name: 'focus', value: 'PATH|NAME', repeatable: true, description: 'a file, folder or name to rank the code around' },
  ],
  async run({ format, value, values, core }, io) {
    const given = value('tokens') ?? String(DEFAULT_MAP_TOKENS);
    const tokens = Number(given);
    if (!/^\d+$/.test(given) || !Number.isSafeInteger(tokens) || tokens < 1) {
      io.err(`repo-wiki: --tokens must be a positive whole number, not "${given.slice(0, 40)}".`);
      return 2;
    }
    const workspace = await core();
    const result = await workspace.map.map({ focus: values('focus'), tokens });
    if (format === 'json') {
      io.out(JSON.stringify({
        tokens: result.tokens,
        files: result.files.map((file) => ({ path: file.path, rank: file.rank, symbols: file.definitions.map(({ name, kind, line, signature }) => ({ name, kind, line: line + 1, signature })) })),
        omitted: result.omitted,
        skipped: result.skipped,
      }));
      return 0;
    }
    if (result.text) io.out(result.text);
    else io.err('No source file in the languages Repo Wiki parses fits the map.');
    return 0;
  },
};
