// The messages between a ParsePool and its parse threads (parseWorker.ts).

export interface ParseJob {
  id: number;
  file: string;
  bytes: Uint8Array;
  wanted?: { names: string[]; wholeFile?: boolean; outline?: boolean };
}

/** A parse, or the grammars to load before the first one (one file per grammar). */
export type ToParseWorker = ParseJob | { prepare: readonly string[] };

/** A parse's answers or error; or WebAssembly this thread compiled, for the pool's process to hold (its code then outlives the thread). */
export type FromParseWorker = { id: number; answers?: string; error?: string } | { compiled: Array<[string, WebAssembly.Module]> };
