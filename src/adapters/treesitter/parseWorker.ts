// Worker-thread entry: tree-sitter parses for a batch of files (a full drift scan). A file's bytes
// come in a message of their own; what was wanted of it goes out, hashed here (see
// threadAnswers.ts), with the answers of the files parsed before it that were not sent yet.
import { parentPort, receiveMessageOnPort } from 'node:worker_threads';
import { compiledWebAssembly } from './grammars';
import type { FromParseWorker, ParseAnswer, ParseJob, ToParseWorker } from './protocol';
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

/** Messages taken and not yet handled, and answers not yet sent. */
const inbox: ToParseWorker[] = [];
let outbox: ParseAnswer[] = [];
let handling = false;

parentPort?.on('message', (message: ToParseWorker) => {
  inbox.push(message);
  if (!handling) void handleInbox();
});

/**
 * Handles what came, in order. Answers go in one message per run of jobs, sent as the last job in
 * hand starts: its process wakes once for several files, not once per file, and still has its
 * next files read and sent while this thread parses that last one.
 */
async function handleInbox(): Promise<void> {
  handling = true;
  while (inbox.length) {
    // Jobs already waiting are taken now (no turn of the event loop each), to see which is the last.
    for (let waiting = receiveMessageOnPort(parentPort!); waiting; waiting = receiveMessageOnPort(parentPort!)) inbox.push(waiting.message as ToParseWorker);
    const message = inbox.shift()!;
    if ('prepare' in message) {
      // A grammar that cannot load is a broken install: the thread fails, and so do the parses sent to it, with that error.
      for (const file of message.prepare) await parser.prepare(file);
      sendCompiled();
      continue;
    }
    if (!inbox.length) sendAnswers();
    outbox.push(await answer(message));
  }
  sendAnswers();
  handling = false;
}

async function answer({ id, file, bytes, wanted }: ParseJob): Promise<ParseAnswer> {
  try {
    await parser.prepare(file);
    sendCompiled();
    return { id, answers: parser.answersOf(file, decoder.decode(bytes), wanted) };
  } catch (error) {
    return { id, error: error instanceof Error ? error.message : String(error) };
  }
}

function sendAnswers(): void {
  if (!outbox.length) return;
  post({ answered: outbox });
  outbox = [];
}
