import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { FileAccessError, isMissing } from '../../core/errors';
import { processAlive, tempPath } from './tempFiles';

/**
 * An exclusive lock file holding its owner's pid, host, start time and a nonce: the one lock core
 * behind the wiki's write lock (files/wikiLock.ts) and the chat history's lock (store/fileLock.ts).
 *
 * - Created with its content in one step: a finished temp file is hard-linked to the lock's name,
 *   which fails if the lock exists, so no one ever reads an empty lock (nor is one left by a crash).
 *   Where hard links are not supported, an exclusive create (O_EXCL) and a write instead.
 * - A lock whose process is gone (same host), or older than `staleMs`, is taken over: renamed aside
 *   (only one taker can), and removed if what moved is the lock judged stale.
 * - Released only while it is still ours (the nonce): after a long pause it may have been taken over.
 * - Read like any untrusted file, since the wiki's comes from a clone: never through a link, never
 *   blocking on a FIFO, capped.
 * - Synchronous on purpose: a handful of metadata calls, each cheaper than a thread-pool round trip,
 *   and the wiki's lock is taken around every page write and index rebuild. Only the wait is async.
 */

export interface LockOptions {
  /** The lock file as the user knows it, in messages (workspace-relative for the wiki's). */
  shown: string;
  /** What the lock is, in a refusal: "the wiki's write lock". */
  role: string;
  /** Who else takes it, in a busy message: "process" or "window". */
  rival: string;
  /** A lock older than this is taken over (its holder hung or died on another host). */
  staleMs: number;
}

export type LockAttempt = { lock: FileLock } | { busy: string };

interface LockOwner {
  pid: number;
  host: string;
  acquired: string;
  nonce: string;
}

interface HeldLock {
  text: string;
  owner?: LockOwner;
  mtimeMs: number;
}

const { O_WRONLY, O_RDONLY, O_CREAT, O_EXCL } = fs.constants;
// Windows has neither; there a lock that is a link or a FIFO is not expected from a clone.
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const MAX_LOCK_BYTES = 4096;
const FIRST_RETRY_MS = 5;
const MAX_RETRY_MS = 100;

export class FileLock {
  private constructor(private readonly file: string, private readonly options: LockOptions, private readonly nonce: string) {}

  /** Takes the lock at `file` (its folder must exist), or says who holds it. Never waits. Times are wall-clock: other processes read them. */
  static tryAcquire(file: string, options: LockOptions): LockAttempt {
    const owner: LockOwner = { pid: process.pid, host: os.hostname(), acquired: new Date().toISOString(), nonce: randomUUID() };
    const temp = tempPath(file);
    writeExclusive(temp, JSON.stringify(owner));
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        if (createFrom(temp, file)) return { lock: new FileLock(file, options, owner.nonce) };
        const held = readLock(file, options);
        if (!held) continue; // released meanwhile
        if (!isStale(held.owner, held.mtimeMs, options.staleMs)) return { busy: describe(options.shown, held.owner) };
        const moved = takeOver(file, options, held.text);
        if (moved !== true) return { busy: describe(options.shown, moved) };
      }
      return { busy: `${options.shown} is being taken over by another ${options.rival}` };
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }

  /** Takes the lock, waiting up to `waitMs` while another holds it (retrying after 5 ms, backing off to 100 ms); then says who holds it. */
  static async acquire(file: string, options: LockOptions, waitMs: number): Promise<LockAttempt> {
    const deadline = Date.now() + waitMs;
    for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
      const attempt = FileLock.tryAcquire(file, options);
      if ('lock' in attempt || Date.now() > deadline) return attempt;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** True while the lock file is still ours (a long pause could have let another process take it over). */
  held(): boolean {
    return readLock(this.file, this.options)?.owner?.nonce === this.nonce;
  }

  /** Removes the lock if it is still ours; a lock taken over meanwhile is not ours to remove. */
  release(): void {
    if (this.held()) fs.rmSync(this.file, { force: true });
  }
}

/** Creates `file` (it must not exist) holding `text`; never through a link. */
function writeExclusive(file: string, text: string): void {
  const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

/** Creates `file` as a copy of `temp` unless it exists; false when it exists. */
function createFrom(temp: string, file: string): boolean {
  try {
    fs.linkSync(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
  }
  // A file system without hard links: exclusive create, then write (a reader may briefly see it empty,
  // and judges it by its age alone).
  try {
    writeExclusive(file, fs.readFileSync(temp, 'utf8'));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The lock at `file`, or undefined when there is none. A link or anything but a small regular file is refused. */
function readLock(file: string, options: LockOptions): HeldLock | undefined {
  const { shown, role } = options;
  let fd: number;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (isMissing(error)) return undefined;
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new FileAccessError('symlink', shown, `${shown}, ${role}, is a symbolic link; Repo Wiki does not follow it, so nothing was changed.`, `Delete ${shown}; it is local state and never committed.`);
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_LOCK_BYTES) {
      throw new FileAccessError('not-regular', shown, `${shown}, ${role}, is not a small regular file; nothing was changed.`, `Delete ${shown}; it is local state and never committed.`);
    }
    const buffer = Buffer.alloc(stat.size);
    const length = fs.readSync(fd, buffer, 0, stat.size, 0);
    const text = buffer.subarray(0, length).toString('utf8');
    let owner: LockOwner | undefined;
    try {
      owner = JSON.parse(text) as LockOwner;
    } catch {
      owner = undefined; // being written (no hard links), or not ours: judged by its age alone
    }
    return { text, owner, mtimeMs: stat.mtimeMs };
  } finally {
    fs.closeSync(fd);
  }
}

function isStale(owner: LockOwner | undefined, mtimeMs: number, staleMs: number): boolean {
  const since = owner ? Date.parse(owner.acquired) : mtimeMs;
  // Written as "not younger than" so an unreadable date counts as stale.
  if (!(Date.now() - since < staleMs)) return true;
  return !!owner && owner.host === os.hostname() && !processAlive(owner.pid);
}

/**
 * Moves the stale lock aside (only one taker can rename it) and removes it if it is the lock judged
 * stale: true then, or when it was released meanwhile. When another taker was faster, what moved is
 * that taker's fresh lock: it is put back, so its holder keeps it, and its owner is returned (this
 * attempt gives up).
 */
function takeOver(file: string, options: LockOptions, staleText: string): true | LockOwner | undefined {
  const aside = tempPath(file);
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if (isMissing(error)) return true; // released meanwhile
    throw error;
  }
  try {
    const moved = readLock(aside, options);
    if (!moved || moved.text === staleText) return true;
    // A third process may have created a lock in between: then two believe they hold it.
    if (!createFrom(aside, file)) process.emitWarning(`Repo Wiki: two processes took over ${options.shown} at once.`);
    return moved.owner;
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

function describe(shown: string, owner: LockOwner | undefined): string {
  return owner ? `${shown} is held by process ${owner.pid} on ${owner.host} since ${owner.acquired}` : `${shown} is held by another program`;
}
