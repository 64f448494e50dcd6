// Worker-thread entry: tree-sitter parses for a batch of files (a full drift scan), one file per
// message: the file's bytes in, what was wanted of it out, hashed here (see threadAnswers.ts).
import { parentPort } from 'node:worker_threads';
import { TreeSitterParser } from './treeSitterParser';

export interface ParseJob {
  id: number;
  file: string;
  bytes: Uint8Array;
  wanted?: { names: string[]; wholeFile?: boolean };
}

/** A parse, or the grammars to load before the first one (one file per grammar). */
export type ToParseWorker = ParseJob | { prepare: readonly string[] };

const parser = new TreeSitterParser();
const decoder = new TextDecoder();

parentPort?.on('message', async (message: ToParseWorker) => {
  if ('prepare' in message) {
    // A grammar that cannot load is a broken install: the thread fails, and so do the parses sent to it, with that error.
    for (const file of message.prepare) await parser.prepare(file);
    return;
  }
  const { id, file, bytes, wanted } = message;
  try {
    await parser.prepare(file);
    parentPort!.postMessage({ id, answers: parser.answersOf(file, decoder.decode(bytes), wanted) });
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
