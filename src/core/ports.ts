/** Ports the core needs; Node adapters live in src/adapters, fakes in test/unit. Paths are absolute. */

export interface FileStat {
  size: number;
  isFile: boolean;
  isDirectory: boolean;
  /**
   * Names this version of the file, for a cache: any write makes another. Undefined when it
   * cannot vouch for that: a file written in the last seconds, whose next write in the same tick
   * of the file system's clock may keep its size and time.
   */
  version?: string;
}

/** Where a path must stay: its real path (links resolved) lies inside `within` (default: the workspace). */
export interface Scope {
  within?: string;
}

export interface ReadOptions extends Scope {
  /** Larger files are refused (a FileAccessError naming the file); the default suits source code. */
  maxBytes?: number;
  /** With `maxBytes`: return the first `maxBytes` bytes instead of refusing. */
  truncate?: boolean;
}

export interface WriteOptions extends Scope {
  /** `false` skips the fsync, for derived files that are rebuilt when damaged. */
  durable?: boolean;
}

/**
 * The file system as the core sees it. Every read and write stays inside the workspace: reads take
 * regular files only (never a FIFO or a device), within a size cap; writes never go through a
 * symbolic link. A refusal is a FileAccessError (core/errors.ts); a missing file is an ENOENT error.
 */
export interface FileSystem {
  readFile(path: string, options?: ReadOptions): Promise<Uint8Array>;
  /** As readFile, with the version of the file the bytes were read from (see FileStat.version). */
  readVersioned(path: string, options?: ReadOptions): Promise<{ bytes: Uint8Array; version?: string }>;
  /** Write via a temp file in the same folder, then rename, so a crash never leaves half a file. */
  writeFileAtomic(path: string, data: string, options?: WriteOptions): Promise<void>;
  /** One write of `data` at the end of the file (created when missing), never through a link. */
  appendFile(path: string, data: string, options?: Scope): Promise<void>;
  /** Undefined when the path does not exist. */
  stat(path: string): Promise<FileStat | undefined>;
  /** Entry names (not paths) of a folder. */
  readdir(path: string, options?: Scope): Promise<string[]>;
  mkdir(path: string, options?: Scope): Promise<void>;
  /** Deletes the file entry at `path` (a link itself, never what it points to); false when there was none. */
  remove(path: string, options?: Scope): Promise<boolean>;
  /** Throws the refusal a write to `path` would meet (a link, a special file, a folder leading out); writes nothing. */
  assertWritable(path: string, options?: Scope): Promise<void>;
  /**
   * Runs `work` holding the lock file `lockPath`, shared by every process that writes the same
   * wiki; waits for another holder, and takes over a stale lock. Not re-entrant: `work` must not
   * take the same lock again (it would wait for itself).
   */
  withLock<T>(lockPath: string, work: () => Promise<T>): Promise<T>;
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
