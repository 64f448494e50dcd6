import type { Readable } from 'node:stream';

/**
 * The question of `repo-wiki query`, from its arguments and stdin: `git diff | repo-wiki query
 * "review this"` asks about the diff (stdin appended to the question), `repo-wiki query - < q.txt`
 * asks stdin alone.
 */

/** Stdin at most this big is read; a larger input is refused rather than cut silently. */
export const MAX_STDIN_CHARS = 200_000;
/**
 * How long a pipe may stay silent before it counts as having no data: a caller that leaves stdin
 * open and writes nothing (a test harness, an editor task) must not hang the command.
 */
export const STDIN_GRACE_MS = 1_000;

/** The question: the arguments, then the piped text after a blank line; `-` alone means stdin only. */
export function combineQuestion(positionals: readonly string[], piped: string | undefined): string {
  const stdinOnly = positionals.length === 1 && positionals[0] === '-';
  const asked = stdinOnly ? '' : positionals.join(' ').trim();
  const text = piped?.replace(/\s+$/, '') ?? '';
  if (!text.trim()) return asked;
  return asked ? `${asked}\n\n${text}` : text;
}

/**
 * Everything written to `stream` until it ends, or undefined when nothing came within `graceMs`
 * (then the stream is let go). `graceMs` undefined waits as long as it takes (`-` asks for stdin).
 */
export function readPiped(stream: Readable, graceMs: number | undefined, maxChars = MAX_STDIN_CHARS): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = graceMs === undefined ? undefined : setTimeout(() => finish(undefined), graceMs);
    const finish = (text: string | undefined, error?: Error) => {
      clearTimeout(timer);
      stream.off('data', onData).off('end', onEnd).off('error', onError);
      stream.pause();
      if (text === undefined) stream.destroy(); // let go of a silent pipe, so the process can exit
      if (error) reject(error);
      else resolve(text);
    };
    const onData = (chunk: Buffer | string) => {
      clearTimeout(timer); // data came: read to the end, however long the writer takes
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxChars * 4) finish(undefined, new Error(`The input on stdin is larger than ${maxChars.toLocaleString('en')} characters. Pass a smaller part (for example, one file's diff).`));
      else chunks.push(bytes);
    };
    const onEnd = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.length > maxChars) finish(undefined, new Error(`The input on stdin is larger than ${maxChars.toLocaleString('en')} characters. Pass a smaller part (for example, one file's diff).`));
      else finish(text);
    };
    const onError = (error: Error) => finish(undefined, error);
    stream.on('data', onData).on('end', onEnd).on('error', onError);
    stream.resume();
  });
}

/** The text piped to this process, or undefined when stdin is a terminal or stays silent. */
export async function stdinText(stdinOnly: boolean): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  return readPiped(process.stdin, stdinOnly ? undefined : STDIN_GRACE_MS);
}
