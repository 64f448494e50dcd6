import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { FileAccessError } from '../../core/errors';
import { processAlive } from '../store/files';

/**
 * The wiki's write lock: a file created exclusively (O_EXCL) holding its owner's pid, host, start
 * time and a nonce. A lock whose process is gone (same host), or older than `staleMs`, is taken
 * over. Synchronous on purpose: the lock is a handful of metadata calls, each cheaper than a
 * thread-pool round trip, and it is taken around every page write and index rebuild. The lock
 * file comes from a clone too, so it is read like any untrusted file: never through a link, never
 * blocking on a FIFO, capped.
 */

interface LockOwner {
  pid: number;
  host: string;
  acquired: string;
  nonce: string;
}

export type LockAttempt = { release(): void } | { busy: string };

const { O_WRONLY, O_RDONLY, O_CREAT, O_EXCL } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const MAX_LOCK_BYTES = 4096;

/** Takes the lock at `file` (its folder must exist), or says who holds it. Never waits. */
export function tryLock(file: string, shown: string, staleMs: number): LockAttempt {
  const owner: LockOwner = { pid: process.pid, host: os.hostname(), acquired: new Date().toISOString(), nonce: randomUUID() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
      try {
        fs.writeSync(fd, JSON.stringify(owner));
      } finally {
        fs.closeSync(fd);
      }
      return { release: () => releaseIfOurs(file, shown, owner.nonce) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = readLock(file, shown);
    if (!held) continue; // released meanwhile
    if (!isStale(held.owner, held.mtimeMs, staleMs)) return { busy: describe(shown, held.owner) };
    takeOver(file, shown, held.text);
  }
  return { busy: `${shown} is being taken over by another process` };
}

function releaseIfOurs(file: string, shown: string, nonce: string): void {
  // After a long pause another process may have taken the lock over: its lock is not ours to remove.
  if (readLock(file, shown)?.owner?.nonce === nonce) fs.rmSync(file, { force: true });
}

function readLock(file: string, shown: string): { text: string; owner?: LockOwner; mtimeMs: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new FileAccessError('symlink', shown, `${shown}, the wiki's write lock, is a symbolic link; Repo Wiki does not follow it, so nothing was changed.`, `Delete ${shown}; it is local state and never committed.`);
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_LOCK_BYTES) {
      throw new FileAccessError('not-regular', shown, `${shown}, the wiki's write lock, is not a small regular file; nothing was changed.`, `Delete ${shown}; it is local state and never committed.`);
    }
    const buffer = Buffer.alloc(stat.size);
    const length = fs.readSync(fd, buffer, 0, stat.size, 0);
    const text = buffer.subarray(0, length).toString('utf8');
    let owner: LockOwner | undefined;
    try {
      owner = JSON.parse(text) as LockOwner;
    } catch {
      owner = undefined; // being written, or not ours: judged by its age alone
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

/** Moves the stale lock aside (only one taker can) and removes it if it is the one judged stale. */
function takeOver(file: string, shown: string, staleText: string): void {
  const aside = `${file}.stale-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // released meanwhile
    throw error;
  }
  // Removed either way: when another taker's fresh lock moved instead (a race of two takers), that
  // taker's release finds no lock of its own, and the next attempt starts clean.
  if (readLock(aside, shown)?.text !== staleText) process.emitWarning(`Repo Wiki: two processes took over ${shown} at once.`);
  fs.rmSync(aside, { force: true });
}

function describe(shown: string, owner: LockOwner | undefined): string {
  return owner ? `${shown} is held by process ${owner.pid} on ${owner.host} since ${owner.acquired}` : `${shown} is held by another program`;
}
