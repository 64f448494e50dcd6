/** Text search over the workspace's files (ripgrep in the Node adapters). Paths are workspace-relative. */
export interface CodeSearch {
  /** Lines matching a regular expression, at most `maxMatches`; `glob` narrows the files searched. */
  grep(pattern: string, options: GrepOptions): Promise<GrepResult>;
  /** Files whose name ends with one of `extensions` and that contain `word` as a whole word. */
  filesContaining(word: string, options: { extensions: readonly string[]; maxFiles: number; signal?: AbortSignal }): Promise<{ files: string[]; truncated: boolean }>;
}

/** The longest glob a search takes: a glob is matched against every path that has a match, in time that grows with its length. */
export const MAX_GLOB_CHARS = 200;

export interface GrepOptions {
  /** At most MAX_GLOB_CHARS characters; a longer one is a `bad-input` CodeSearchError. */
  glob?: string;
  maxMatches: number;
  signal?: AbortSignal;
}

export interface CodeMatch {
  path: string;
  /** 1-based. */
  line: number;
  text: string;
}

export interface GrepResult {
  matches: CodeMatch[];
  /** More lines matched than were returned. */
  truncated: boolean;
  /** The search ran out of time; the matches are those found until then. */
  timedOut: boolean;
}

/** Why a search could not run: no search program, or a pattern or glob it rejects. The message says what to do. */
export class CodeSearchError extends Error {
  constructor(
    readonly reason: 'unavailable' | 'bad-input',
    message: string,
  ) {
    super(message);
    this.name = 'CodeSearchError';
  }
}
