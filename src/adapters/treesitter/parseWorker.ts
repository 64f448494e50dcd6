// Worker-thread entry: tree-sitter parses for a batch of files (a full drift scan), one file per message.
import { parentPort } from 'node:worker_threads';
import { packOutline, TreeSitterParser } from './treeSitterParser';

export interface ParseJob {
  id: number;
  file: string;
  text: string;
  wanted?: { names: string[]; wholeFile?: boolean };
}

const parser = new TreeSitterParser();

parentPort?.on('message', async ({ id, file, text, wanted }: ParseJob) => {
  try {
    await parser.prepare(file);
    const outline = packOutline(parser.outlineOf(file, text, wanted));
    parentPort!.postMessage({ id, outline }, [outline.numbers.buffer as ArrayBuffer]);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
