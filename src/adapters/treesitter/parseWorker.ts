// Worker-thread entry: tree-sitter parses for a batch of files (a full drift scan), one file per
// message: the file's bytes in, what was wanted of it out, hashed here (see threadAnswers.ts).
import { parentPort } from 'node:worker_threads';
import { compiledWebAssembly } from './grammars';
import type { FromParseWorker, ToParseWorker } from './protocol';
import { TreeSitterParser } from './treeSitterParser';

const parser = new TreeSitterParser();
const decoder = new TextDecoder();
const sent = new Set<string>();

function post(message: FromParseWorker): void {
  parentPort!.postMessage(message);
}

/** Sends the WebAssembly compiled since the last call (on every job: nothing to do, but for a grammar just loaded). */
function sendCompiled(): void {
  if (compiledWebAssembly().size === sent.size) return;
  const fresh = [...compiledWebAssembly()].filter(([file]) => !sent.has(file));
  for (const [file] of fresh) sent.add(file);
  if (fresh.length) post({ compiled: fresh });
}

parentPort?.on('message', async (message: ToParseWorker) => {
  if ('prepare' in message) {
    // A grammar that cannot load is a broken install: the thread fails, and so do the parses sent to it, with that error.
    for (const file of message.prepare) await parser.prepare(file);
    sendCompiled();
    return;
  }
  const { id, file, bytes, wanted } = message;
  try {
    await parser.prepare(file);
    sendCompiled();
    post({ id, answers: parser.answersOf(file, decoder.decode(bytes), wanted) });
  } catch (error) {
    post({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
