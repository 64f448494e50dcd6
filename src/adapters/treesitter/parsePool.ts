import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WantedSymbols } from '../../core/drift/symbols';
import type { ParseJob } from './parseWorker';
import { unpackOutline, type Outline, type PackedOutline } from './treeSitterParser';

/** Threads beyond this add memory (a grammar heap each) faster than they save time. */
const MAX_THREADS = 4;
/** Jobs sent to a thread at once: one parsing, one waiting; the rest wait here, so big files do not pile up behind each other. */
const IN_FLIGHT = 2;
/** An idle pool gives its threads (and their WebAssembly heaps) back after this long. */
const IDLE_MS = 30_000;

interface Thread {
  worker: Worker;
  busy: number;
}

interface Job {
  message: ParseJob;
  resolve: (outline: Outline) => void;
  reject: (error: Error) => void;
  thread?: Thread;
}

/**
 * Tree-sitter parses on worker threads, one per core: a full scan of a large repository parses
 * on every core while the caller reads files and compares fingerprints. Threads start on the
 * first parse and end when the pool has been idle for a while; they never keep a process alive.
 */
export class ParsePool {
  private readonly threads: Thread[] = [];
  private readonly queue: Job[] = [];
  private readonly sent = new Map<number, Job>();
  private nextId = 0;
  private idleTimer?: NodeJS.Timeout;

  constructor(
    private readonly script: string,
    private readonly size = Math.min(MAX_THREADS, os.availableParallelism()),
  ) {}

  /** The pool whose worker script is in `dir` (dist/parseWorker.js beside a bundle, or the compiled module), or none when it was not built. */
  static beside(dir: string): ParsePool | undefined {
    const script = path.join(dir, 'parseWorker.js');
    return fs.existsSync(script) ? new ParsePool(script) : undefined;
  }

  outline(file: string, text: string, wanted?: WantedSymbols): Promise<Outline> {
    clearTimeout(this.idleTimer);
    return new Promise<Outline>((resolve, reject) => {
      this.queue.push({ message: { id: this.nextId++, file, text, wanted: wanted && { names: [...wanted.names], wholeFile: wanted.wholeFile } }, resolve, reject });
      this.pump();
    });
  }

  /** Ends every thread; a later parse starts them again. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private pump(): void {
    while (this.queue.length) {
      const thread = this.threads.find((t) => t.busy === 0) ?? (this.threads.length < this.size ? this.start() : this.threads.find((t) => t.busy < IN_FLIGHT));
      if (!thread) return;
      const job = this.queue.shift()!;
      job.thread = thread;
      this.sent.set(job.message.id, job);
      if (thread.busy++ === 0) thread.worker.ref();
      thread.worker.postMessage(job.message);
    }
  }

  private start(): Thread {
    const thread: Thread = { worker: new Worker(this.script), busy: 0 };
    thread.worker.on('message', (message: { id: number; outline?: PackedOutline; error?: string }) => {
      const job = this.sent.get(message.id);
      if (!job) return;
      this.sent.delete(message.id);
      this.finished(thread);
      if (message.outline) job.resolve(unpackOutline(message.outline));
      else job.reject(new Error(`Parsing ${job.message.file} failed on a worker thread: ${message.error}`));
    });
    // A thread that dies takes its jobs with it: they fail with its error, and queued jobs go to a new thread.
    thread.worker.on('error', (error) => this.lost(thread, error));
    thread.worker.on('exit', (code) => this.lost(thread, new Error(`A parse thread stopped (exit code ${code}).`)));
    thread.worker.unref();
    this.threads.push(thread);
    return thread;
  }

  private finished(thread: Thread): void {
    if (--thread.busy === 0) thread.worker.unref();
    this.pump();
    if (!this.queue.length && this.threads.every((t) => t.busy === 0)) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => void this.close(), IDLE_MS).unref();
    }
  }

  private lost(thread: Thread, error: Error): void {
    const index = this.threads.indexOf(thread);
    if (index < 0) return;
    this.threads.splice(index, 1);
    for (const [id, job] of this.sent) {
      if (job.thread !== thread) continue;
      this.sent.delete(id);
      job.reject(error);
    }
    this.pump();
  }
}
