/** Ports the core needs; Node adapters live in src/adapters, fakes in test/unit. Paths are absolute. */

export interface FileStat {
  size: number;
  isFile: boolean;
  isDirectory: boolean;
}

export interface FileSystem {
  readFile(path: string): Promise<Uint8Array>;
  /**
   * Write via a temp file in the same folder, then rename, so a crash never leaves half a file.
   * `durable: false` skips the fsync, for derived files that are rebuilt when damaged.
   */
  writeFileAtomic(path: string, data: string, options?: { durable?: boolean }): Promise<void>;
  appendFile(path: string, data: string): Promise<void>;
  /** Undefined when the path does not exist. */
  stat(path: string): Promise<FileStat | undefined>;
  /** Entry names (not paths) of a folder. */
  readdir(path: string): Promise<string[]>;
  mkdir(path: string): Promise<void>;
}

export interface Clock {
  now(): Date;
}

/** Git operations on the repository that holds a workspace folder. */
export interface WikiGit {
  /** Undefined when git is usable, otherwise the reason (not a repository, git missing). */
  unavailableReason(): Promise<string | undefined>;
  /** Text of `.wiki/log.jsonl` at HEAD, or undefined when HEAD has none. */
  logAtHead(): Promise<string | undefined>;
  /** Paths under `.wiki/` that differ from HEAD (staged, unstaged or untracked). */
  changedWikiPaths(): Promise<string[]>;
  /** Commit only `.wiki/` paths; every other staged or unstaged change stays as it was. */
  commitWiki(message: string): Promise<{ commit: string; files: string[] }>;
  /** `git log` of `.wiki/pages` as `%x00%ct` plus file names, newest first, in one call ('' without history). */
  pagesLog(): Promise<string>;
}
