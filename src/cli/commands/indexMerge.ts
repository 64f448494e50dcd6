import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mergeIndexFile } from '../../core/index/indexMerge';
import type { CliCommand } from '../command';
import { describeFileError } from '../fileErrors';
import { usageLine } from '../help';

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
  const inputs = [readInput(base), readInput(ours, { notALink: true }), readInput(theirs)];
  const failed = inputs.findIndex((input) => 'reason' in input);
  if (failed >= 0) {
    io.err(`repo-wiki: cannot read ${files[failed]}: ${(inputs[failed] as { reason: string }).reason}.`);
    return 2;
  }
  const [o, a, b] = inputs as Input[];
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

interface Input {
  text: string;
  /** Permission bits, kept when OURS is replaced. */
  mode: number;
}

/** An input file's UTF-8 text, or why it cannot be read; a FIFO or device never blocks the read. */
function readInput(file: string, options: { notALink?: boolean } = {}): Input | { reason: string } {
  let fd: number;
  try {
    // The merge result replaces OURS; a link there would make the "file" something else.
    if (options.notALink && fs.lstatSync(file).isSymbolicLink()) return { reason: 'it is a symbolic link, and the merge result is not written through one' };
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { reason: describeFileError(error) };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { reason: stat.isDirectory() ? 'it is a folder' : 'it is not a regular file' };
    if (stat.size > MAX_INPUT_BYTES) return { reason: `it is ${Math.ceil(stat.size / 1048576)} MB, and a wiki index over ${MAX_INPUT_BYTES / 1048576} MB is not read` };
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(fs.readFileSync(fd)), mode: stat.mode & 0o777 };
  } catch (error) {
    return { reason: error instanceof TypeError ? 'it is not UTF-8 text' : describeFileError(error) };
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes a temp file beside `file`, then renames it over: a crash never leaves half a catalog. Returns why it failed, if it did. */
function replaceFile(file: string, text: string, mode: number): string | undefined {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.rwtmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const fd = fs.openSync(temp, 'wx', mode);
    try {
      fs.writeFileSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
    return undefined;
  } catch (error) {
    fs.rmSync(temp, { force: true });
    return describeFileError(error);
  }
}
