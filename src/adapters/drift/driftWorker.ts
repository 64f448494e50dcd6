// Worker-thread entry: drift analysis (TypeScript parsing included) runs here, off the extension host's main thread.
import { parentPort, workerData } from 'node:worker_threads';
import type { WikiError } from '../../core/errors';
import { openLocalCore, type LocalCore } from '../localCore';
import { SourceParser } from '../sourceParser';
import type { DriftRequest, DriftResponses, FromWorker, ToWorker } from './protocol';

const parser = new SourceParser();
const folders = new Map<string, LocalCore>();
const running = new Map<number, AbortController>();

function backendOf(root: string) {
  let core = folders.get(root);
  if (!core) {
    // Off the extension host's main thread: the core's blocking reads skip a thread-pool round trip per file.
    core = openLocalCore(root, { parser, semantic: (workerData as { semantic?: boolean } | null)?.semantic === true });
    folders.set(root, core);
  }
  return core.drift;
}

async function handle(request: DriftRequest, signal: AbortSignal): Promise<DriftResponses[DriftRequest['kind']]> {
  const drift = backendOf(request.root);
  switch (request.kind) {
    case 'check':
      return drift.check({ slugs: request.slugs, texts: request.texts, fresh: request.fresh }, signal);
    case 'sourcesChanged':
      return drift.sourcesChanged({ paths: request.paths, listChanged: request.listChanged, citing: request.citing }, signal);
    case 'stamp':
      return drift.stamp(request.slug, { citations: request.citations, onlyMissing: request.onlyMissing });
    case 'locate':
      return (await drift.locate(request)) ?? null;
    case 'symbols':
      return [...(await drift.symbolsOf(request.path, request.text))];
    case 'whatChanged':
      return drift.whatChanged(request.citation, request.anchor);
    case 'anchor':
      return (await drift.currentAnchor(request)) ?? null;
  }
}

parentPort?.on('message', (message: ToWorker) => {
  if ('cancel' in message) {
    running.get(message.id)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(message.id, controller);
  handle(message.request, controller.signal).then(
    (result) => parentPort!.postMessage({ id: message.id, result } satisfies FromWorker),
    (error: unknown) => {
      const e = error as Partial<WikiError>;
      parentPort!.postMessage({ id: message.id, error: { message: e.message ?? String(error), code: e.code, hint: e.hint } } satisfies FromWorker);
    },
  ).finally(() => running.delete(message.id));
});
