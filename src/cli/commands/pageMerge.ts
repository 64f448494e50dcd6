import { gitMergeFile } from '../../adapters/git/mergeFile';
import { mergePageFile } from '../../core/pages/pageMerge';
import { MAX_PAGE_BYTES } from '../../core/pages/page';
import type { CliCommand } from '../command';
import { usageLine } from '../help';
import { readMergeInputs, replaceFile } from '../mergeDriverFiles';

/** `repo-wiki page merge`: the page merge driver `merge-driver install` configures; see `mergePageCommand`. */
export const pageMerge: CliCommand = {
  name: 'page merge',
  summary: 'the page merge driver itself (git runs it)',
  description: 'Exits 1 on a conflict. It merges BASE, OURS and THEIRS (git passes them as %O %A %B %P) and writes the result to OURS: drift anchors citation by citation, the other frontmatter fields key by key, the body as text (git merge-file). What both sides changed differently is left between conflict markers.',
  usage: 'BASE OURS THEIRS [PATH]',
  workspace: 'none',
  options: [{ name: 'marker-size', value: 'N', default: '7', description: 'the length of conflict markers (git passes %L)' }],
  run: ({ positionals, value }, io) => mergePageCommand([...positionals], Number(value('marker-size')), io),
};

/**
 * `page merge BASE OURS THEIRS [PATH]`: git's merge driver contract, the result written to OURS,
 * conflict markers included. Returns the exit code: 0 merged, 1 a conflict, 2 a usage error or an
 * input it cannot read or write (OURS then stays as it was).
 */
export async function mergePageCommand(files: string[], markerSize: number, io: { out(text: string): void; err(text: string): void }): Promise<number> {
  if (files.length < 3 || !Number.isInteger(markerSize) || markerSize < 1) {
    io.err(`page merge takes BASE OURS THEIRS [PATH] and a --marker-size of 1 or more (git passes them as %O %A %B %P and %L).\n\n${usageLine(pageMerge)}`);
    return 2;
  }
  const [base, ours, theirs, name = ours] = files;
  // A page over the size pages are read at is still merged, as text.
  const inputs = readMergeInputs([base, ours, theirs], 64 * MAX_PAGE_BYTES, 'a wiki page', io);
  if (!inputs) return 2;
  const [o, a, b] = inputs;
  const markers = { size: markerSize, ours: 'ours', theirs: 'theirs' };
  let result;
  try {
    result = await mergePageFile(o.text, a.text, b.text, gitMergeFile(markers), markers);
  } catch (error) {
    io.err(`repo-wiki: cannot merge ${name}: ${(error as Error).message}; it was left as it was.`);
    return 2;
  }
  const writeFailure = replaceFile(ours, result.text, a.mode);
  if (writeFailure) {
    io.err(`repo-wiki: cannot write ${ours}: ${writeFailure}; it was left as it was.`);
    return 2;
  }
  if (result.asText) io.err(`repo-wiki: ${name}: ${result.asText}, so it was merged as plain text.`);
  if (result.conflicts.length) {
    io.err(`repo-wiki: both sides changed ${result.conflicts.join(', ')} of ${name} differently; resolve the conflict markers, then run "repo-wiki drift --review-flagged".`);
    return 1;
  }
  return 0;
}
