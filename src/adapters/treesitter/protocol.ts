// The messages between a ParsePool and its parse threads (parseWorker.ts).

export interface ParseJob {
  id: number;
  file: string;
  bytes: Uint8Array;
  wanted?: { names: string[]; wholeFile?: boolean; outline?: boolean };
}

/** A parse, or the grammars to load before the first one (one file per grammar). */
export type ToParseWorker = ParseJob | { prepare: readonly string[] };

/** A parse's answers, or why it failed. */
export interface ParseAnswer {
  id: number;
  answers?: string;
  error?: string;
}

/**
 * Parses answered, in the order they were asked (several in one message: see parseWorker.ts); or
 * WebAssembly this thread compiled, for the pool's process to hold (its code then outlives the thread).
 */
export type FromParseWorker = { answered: ParseAnswer[] } | { compiled: Array<[string, WebAssembly.Module]> };
