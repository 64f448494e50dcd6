// What git's merge drivers share: reading BASE, OURS and THEIRS, and replacing OURS with the result.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeFileError } from './fileErrors';

export interface MergeInput {
  text: string;
  /** Permission bits, kept when OURS is replaced. */
  mode: number;
}

/**
 * BASE, OURS and THEIRS as text, or undefined once the first that cannot be read is reported (the
 * driver then exits 2). OURS is never a link: the result replaces it.
 */
export function readMergeInputs(files: readonly [string, string, string], maxBytes: number, what: string, io: { err(text: string): void }): [MergeInput, MergeInput, MergeInput] | undefined {
  const inputs = files.map((file, i) => readInput(file, maxBytes, what, { notALink: i === 1 }));
  const failed = inputs.findIndex((input) => 'reason' in input);
  if (failed < 0) return inputs as [MergeInput, MergeInput, MergeInput];
  io.err(`repo-wiki: cannot read ${files[failed]}: ${(inputs[failed] as { reason: string }).reason}.`);
  return undefined;
}

/** An input file's UTF-8 text, or why it cannot be read; a FIFO or device never blocks the read. */
function readInput(file: string, maxBytes: number, what: string, options: { notALink?: boolean } = {}): MergeInput | { reason: string } {
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
    if (stat.size > maxBytes) return { reason: `it is ${Math.ceil(stat.size / 1048576)} MB, and ${what} over ${maxBytes / 1048576} MB is not read` };
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(fs.readFileSync(fd)), mode: stat.mode & 0o777 };
  } catch (error) {
    return { reason: error instanceof TypeError ? 'it is not UTF-8 text' : describeFileError(error) };
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes a temp file beside `file`, then renames it over: a crash never leaves half a file. Returns why it failed, if it did. */
export function replaceFile(file: string, text: string, mode: number): string | undefined {
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
