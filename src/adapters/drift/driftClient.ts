import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { WikiError, type WikiErrorCode } from '../../core/errors';
import type { DriftRequest, DriftResponses, FromWorker, ToWorker } from './protocol';

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** The heap cap of a drift worker in semantic mode. */
export const SEMANTIC_WORKER_HEAP_MB = 2048;

/** Talks to the drift worker; starts it on first use and restarts it if it dies. */
export class DriftClient {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly workerScript = path.join(__dirname, 'driftWorker.js'), private readonly options: { semantic?: boolean } = {}) {}

  request<K extends DriftRequest['kind']>(request: Extract<DriftRequest, { kind: K }>, signal?: AbortSignal): Promise<DriftResponses[K]> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<DriftResponses[K]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      signal?.addEventListener('abort', () => worker.postMessage({ id, cancel: true } satisfies ToWorker), { once: true });
      worker.postMessage({ id, request } satisfies ToWorker);
    });
  }

  dispose(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const semantic = this.options.semantic === true;
    // Semantic mode loads a whole program into the worker: a hard heap cap keeps that off the extension host.
    const worker = new Worker(this.workerScript, { workerData: { semantic }, ...(semantic ? { resourceLimits: { maxOldGenerationSizeMb: SEMANTIC_WORKER_HEAP_MB } } : {}) });
    worker.on('message', (message: FromWorker) => {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      if (!('error' in message)) pending.resolve(message.result);
      else if (message.error.code) pending.reject(new WikiError(message.error.code as WikiErrorCode, message.error.message, message.error.hint));
      else pending.reject(new Error(message.error.message));
    });
    worker.on('error', (error: NodeJS.ErrnoException) => this.failAll(error.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? new WikiError('semantic-too-large', `The drift worker ran out of its ${SEMANTIC_WORKER_HEAP_MB} MB in semantic mode: this workspace's program is too large to type-check.`, 'Turn off repoWiki.drift.semantic, or narrow tsconfig.json to the code the wiki cites.')
      : error));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new Error(`The drift worker stopped (exit code ${code}).`));
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
