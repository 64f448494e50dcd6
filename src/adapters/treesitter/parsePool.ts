import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WantedSymbols } from '../../core/drift/symbols';
import type { FromParseWorker, ParseJob, ToParseWorker } from './protocol';

/** Threads beyond this add memory (a grammar heap each) faster than they save time. */
const MAX_THREADS = 4;
/**
 * Jobs given to a thread at once: one parsing, the next ones read and waiting; the rest wait here,
 * unread, so big files do not pile up behind each other. More than one waiting: this thread is
 * busy too (the map counts a file's references here), and answers late. On the map's 1M-line
 * corpus on 2 cores, 4 against 2 halved the time each thread waited for its next file (0.8 s to 0.4 s).
 */
const IN_FLIGHT = 4;
/**
 * A parse makes many short-lived syntax nodes and little that outlives a file: a small young
 * generation collects them as often, in far less memory than the default. On the 1M-line scale
 * scan, 4 MB against 16 took about 25 MB off the peak RSS for about 0.3 s more of scavenging,
 * spread over the threads.
 */
const YOUNG_GENERATION_MB = 4;

interface Thread {
  worker: Worker;
  busy: number;
  /** The grammars this thread parses with (each one's tables are copied into the memory of every thread that loads it). */
  grammars: Set<string>;
  /** Files of the current batch given to it, to share grammars out evenly. */
  share: number;
}

/** A file's bytes, read when a thread is ready for them; undefined when its answers are known already (nothing to parse). */
export type ReadBytes = () => Promise<Uint8Array | undefined>;

interface Job {
  id: number;
  file: string;
  read: ReadBytes;
  wanted?: WantedSymbols;
  resolve: (answers: string | undefined) => void;
  reject: (error: Error) => void;
  thread?: Thread;
}

/**
 * Tree-sitter parses on worker threads, one per core: a full scan of a large repository parses
 * and hashes on every core while the caller reads files and compares fingerprints. Each grammar goes to one
 * thread, so a thread compiles only its share of them; a thread with nothing left of its own
 * takes over another grammar's waiting files. Threads end when the last batch started is released
 * (two at once share them), and never keep a process alive.
 */
export class ParsePool {
  private readonly threads: Thread[] = [];
  /** Waiting jobs, by grammar, each in the order they came. */
  private readonly queues = new Map<string, Job[]>();
  private readonly sent = new Map<number, Job>();
  private nextId = 0;
  /** Batches started and not yet released: a map and a drift check at once (on the MCP server) share the threads. */
  private batches = 0;

  constructor(
    private readonly script: string,
    /** The grammar a file parses with. */
    private readonly grammarOf: (file: string) => string,
    /** Takes the WebAssembly a thread compiled, to hold in this process (see parseWorker.ts). */
    private readonly keep: (file: string, module: WebAssembly.Module) => void,
    private readonly size = Math.min(MAX_THREADS, os.availableParallelism()),
  ) {}

  /** The pool whose worker script is in `dir` (dist/parseWorker.js beside a bundle, or the compiled module), or none when it was not built. */
  static beside(dir: string, grammarOf: (file: string) => string, keep: (file: string, module: WebAssembly.Module) => void): ParsePool | undefined {
    const script = path.join(dir, 'parseWorker.js');
    return fs.existsSync(script) ? new ParsePool(script, grammarOf, keep) : undefined;
  }

  /**
   * Starts every thread for a batch of files, sharing the grammars out by how many files need
   * each, and has each thread load its grammars now, before the first file is read.
   */
  start(files: readonly string[]): void {
    this.batches++;
    while (this.threads.length < this.size) this.launch();
    // Per grammar: how many files need it, and one of them (a thread loads a grammar by a file's name).
    const byGrammar = new Map<string, { count: number; file: string }>();
    for (const file of files) {
      const grammar = this.grammarOf(file);
      const entry = byGrammar.get(grammar);
      if (entry) entry.count++;
      else byGrammar.set(grammar, { count: 1, file });
    }
    for (const thread of this.threads) thread.share = 0;
    const load = new Map<Thread, string[]>();
    for (const [grammar, { count, file }] of [...byGrammar].sort((a, b) => b[1].count - a[1].count)) {
      const owner = this.threads.find((thread) => thread.grammars.has(grammar)) ?? this.threads.reduce((least, thread) => (thread.share < least.share ? thread : least));
      owner.share += count;
      if (!owner.grammars.has(grammar)) load.set(owner, [...(load.get(owner) ?? []), file]);
      owner.grammars.add(grammar);
    }
    for (const [thread, prepare] of load) thread.worker.postMessage({ prepare } satisfies ToParseWorker);
  }

  /**
   * What `wanted` reads of a file, hashed on a thread (see threadAnswers.ts); undefined when
   * `read` found nothing to parse. The file is read when a thread is ready for it, and its bytes
   * go to that thread: a batch of thousands of files holds only those being parsed.
   */
  answers(file: string, read: ReadBytes, wanted?: WantedSymbols): Promise<string | undefined> {
    return new Promise<string | undefined>((resolve, reject) => {
      const grammar = this.grammarOf(file);
      const queue = this.queues.get(grammar) ?? [];
      queue.push({ id: this.nextId++, file, read, wanted, resolve, reject });
      this.queues.set(grammar, queue);
      this.pump();
    });
  }

  /** A batch is done: the last one of those started ends the threads (close), the others leave them to it. */
  async release(): Promise<void> {
    this.batches = Math.max(0, this.batches - 1);
    if (this.batches === 0) await this.close();
  }

  /** Ends every thread, failing the parses still to come; a later parse starts them again. */
  async close(): Promise<void> {
    this.batches = 0;
    const threads = this.threads.splice(0);
    const unfinished = [...this.sent.values(), ...[...this.queues.values()].flat()];
    this.sent.clear();
    this.queues.clear();
    for (const job of unfinished) job.reject(new Error(`The parse threads were closed before ${job.file} was parsed.`));
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private pump(): void {
    for (let sent = true; sent; ) {
      sent = false;
      if (this.threads.length < this.size && this.threads.every((t) => t.busy > 0) && this.waiting()) this.launch();
      for (const thread of [...this.threads].sort((a, b) => a.busy - b.busy)) {
        if (thread.busy >= IN_FLIGHT) continue;
        // Its own grammars' oldest job; an idle thread takes over another grammar rather than wait.
        const grammar = this.oldestOf(thread.grammars) ?? (thread.busy === 0 ? this.oldestOf(this.queues.keys()) : undefined);
        if (grammar === undefined) continue;
        thread.grammars.add(grammar);
        this.send(thread, this.queues.get(grammar)!.shift()!);
        sent = true;
      }
    }
  }

  private waiting(): boolean {
    for (const queue of this.queues.values()) if (queue.length) return true;
    return false;
  }

  /** The grammar, among these, whose waiting job came first. */
  private oldestOf(grammars: Iterable<string>): string | undefined {
    let oldest: string | undefined;
    let first = Infinity;
    for (const grammar of grammars) {
      const head = this.queues.get(grammar)?.[0];
      if (head && head.id < first) {
        first = head.id;
        oldest = grammar;
      }
    }
    return oldest;
  }

  /** Gives a job to a thread, which counts as busy with it while its file is read. */
  private send(thread: Thread, job: Job): void {
    job.thread = thread;
    this.sent.set(job.id, job);
    if (thread.busy++ === 0) thread.worker.ref();
    const { id, file, wanted } = job;
    // Whether the job is still this thread's: the thread may have died, or the pool closed, during the read.
    const current = () => this.sent.get(id) === job;
    // A read that throws at once fails its own job, like one that rejects, never the pump that called it.
    Promise.resolve().then(job.read).then(
      (bytes) => {
        if (!current()) return;
        if (!bytes) return this.done(thread, job).resolve(undefined);
        const message: ParseJob = { id, file, bytes: movable(bytes), wanted: wanted && { names: [...wanted.names], wholeFile: wanted.wholeFile, ...(wanted.outline ? { outline: true } : {}) } };
        thread.worker.postMessage(message, [message.bytes.buffer as ArrayBuffer]);
      },
      (error: Error) => current() && this.done(thread, job).reject(error),
    );
  }

  /** A job is over on this thread: the thread takes the next one. */
  private done(thread: Thread, job: Job): Job {
    this.sent.delete(job.id);
    this.finished(thread);
    return job;
  }

  private launch(): Thread {
    const worker = new Worker(this.script, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    const thread: Thread = { worker, busy: 0, grammars: new Set(), share: 0 };
    worker.on('message', (message: FromParseWorker) => {
      if ('compiled' in message) {
        for (const [file, module] of message.compiled) this.keep(file, module);
        return;
      }
      for (const { id, answers, error } of message.answered) {
        const job = this.sent.get(id);
        if (!job) continue;
        this.done(thread, job);
        if (answers !== undefined) job.resolve(answers);
        else job.reject(new Error(`Parsing ${job.file} failed on a worker thread: ${error}`));
      }
    });
    // A thread that dies takes its jobs with it: they fail with its error, and waiting jobs go to another thread.
    worker.on('error', (error) => this.lost(thread, error));
    worker.on('exit', (code) => this.lost(thread, new Error(`A parse thread stopped (exit code ${code}).`)));
    worker.unref();
    this.threads.push(thread);
    return thread;
  }

  private finished(thread: Thread): void {
    if (--thread.busy === 0) thread.worker.unref();
    this.pump();
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

/** Bytes that own their whole buffer, to move to a thread without a copy; a view into a shared one (a small file's, from Node's pool) is copied. */
function movable(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
}
