import { mergeIndexFile } from '../../core/index/indexMerge';
import type { CliCommand } from '../command';
import { usageLine } from '../help';
import { readMergeInputs, replaceFile } from '../mergeDriverFiles';

/** A catalog of thousands of pages is a few MB; past this an input is not read at all. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** `repo-wiki index merge`: the merge driver `merge-driver install` configures; see `mergeIndexCommand`. */
export const indexMerge: CliCommand = {
  name: 'index merge',
  summary: 'the index merge driver itself (git runs it)',
  description: 'Exits 1 on a conflict. It merges BASE, OURS and THEIRS (git passes them as %O %A %B %P) page by page and writes the result to OURS. PATH, the file\'s path in the repository (OURS when not given), tells index.md from index.json.',
  usage: 'BASE OURS THEIRS [PATH]',
  workspace: 'none',
  options: [],
  run: ({ positionals }, io) => mergeIndexCommand([...positionals], io),
};

/**
 * `index merge BASE OURS THEIRS [PATH]`: git's merge driver contract, the result written to OURS.
 * Returns the exit code: 0 merged, 1 a conflict or a side it cannot trust (OURS then stays as it
 * was), 2 a usage error or an input it cannot read or write.
 */
export function mergeIndexCommand(files: string[], io: { out(text: string): void; err(text: string): void }): number {
  if (files.length < 3) {
    io.err(`index merge takes BASE OURS THEIRS [PATH] (git passes them as %O %A %B %P).\n\n${usageLine(indexMerge)}`);
    return 2;
  }
  const [base, ours, theirs, name = ours] = files;
  const inputs = readMergeInputs([base, ours, theirs], MAX_INPUT_BYTES, 'a wiki index', io);
  if (!inputs) return 2;
  const [o, a, b] = inputs;
  const result = mergeIndexFile(name, o.text, a.text, b.text);
  if (result.text === undefined) {
    io.err(`repo-wiki: cannot merge ${name}: ${result.problem}. Ours is kept unchanged and the file stays conflicted; run "Repair wiki index" (repo-wiki index rebuild).`);
    return 1;
  }
  const writeFailure = replaceFile(ours, result.text, a.mode);
  if (writeFailure) {
    io.err(`repo-wiki: cannot write ${ours}: ${writeFailure}; it was left as it was.`);
    return 2;
  }
  if (result.conflicts.length) {
    io.err(`repo-wiki: both sides changed ${result.conflicts.join(', ')} in ${name}; resolve those pages, then rebuild the index.`);
    return 1;
  }
  return 0;
}
