import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import { isMissing, processAlive, tempPath } from './files';

/**
 * An exclusive lock file holding its owner's pid, host and start time, created with its content in
 * one step (a hard link of a finished temp file fails if the lock exists), so no one ever reads an
 * empty lock. A lock whose process is gone (same host), or older than `staleMs`, is taken over.
 */

interface LockOwner {
  pid: number;
  host: string;
  acquired: string;
  nonce: string;
}

export type LockAttempt = { lock: FileLock } | { busy: string };

export class FileLock {
  private constructor(private readonly file: string, private readonly nonce: string) {}

  /** Takes the lock, or says who holds it. Never waits. Times are wall-clock: other processes read them. */
  static async tryAcquire(file: string, staleMs: number): Promise<LockAttempt> {
    const owner: LockOwner = { pid: process.pid, host: os.hostname(), acquired: new Date().toISOString(), nonce: randomUUID() };
    const temp = tempPath(file);
    await fs.writeFile(temp, JSON.stringify(owner));
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        if (await createFrom(temp, file)) return { lock: new FileLock(file, owner.nonce) };
        const held = await readLock(file);
        if (!held) continue; // released meanwhile
        if (!isStale(held.owner, held.mtimeMs, staleMs) || !(await takeOver(file, held.text))) return { busy: describe(file, held.owner) };
      }
      return { busy: `${file} is being taken over by another window` };
    } finally {
      await fs.rm(temp, { force: true });
    }
  }

  /** True while the lock file is still ours (a long pause could have let another window take it over). */
  async held(): Promise<boolean> {
    const current = await readLock(this.file);
    return current?.owner?.nonce === this.nonce;
  }

  async release(): Promise<void> {
    if (await this.held()) await fs.rm(this.file, { force: true });
  }
}

/** Creates `file` as a copy of `temp` unless it exists; false when it exists. */
async function createFrom(temp: string, file: string): Promise<boolean> {
  try {
    await fs.link(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
  }
  // A file system without hard links: exclusive create, then write (a reader may briefly see it empty).
  try {
    await fs.writeFile(file, await fs.readFile(temp), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function readLock(file: string): Promise<{ text: string; owner?: LockOwner; mtimeMs: number } | undefined> {
  try {
    const [text, stat] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    let owner: LockOwner | undefined;
    try {
      owner = JSON.parse(text) as LockOwner;
    } catch {
      owner = undefined; // not ours to read: judged by its age alone
    }
    return { text, owner, mtimeMs: stat.mtimeMs };
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function isStale(owner: LockOwner | undefined, mtimeMs: number, staleMs: number): boolean {
  const since = owner ? Date.parse(owner.acquired) : mtimeMs;
  // Written as "not younger than" so an unreadable date counts as stale.
  if (!(Date.now() - since < staleMs)) return true;
  return !!owner && owner.host === os.hostname() && !processAlive(owner.pid);
}

/**
 * Moves the stale lock aside atomically (only one taker can rename it) and checks that what moved is
 * the lock judged stale; if another taker's fresh lock moved instead, that taker notices through
 * held() and gives up, and so do we: the next attempt starts clean.
 */
async function takeOver(file: string, staleText: string): Promise<boolean> {
  const aside = tempPath(file);
  try {
    await fs.rename(file, aside);
  } catch (error) {
    if (isMissing(error)) return true; // released meanwhile
    throw error;
  }
  const moved = await fs.readFile(aside, 'utf8').catch(() => undefined);
  await fs.rm(aside, { force: true });
  return moved === staleText;
}

function describe(file: string, owner: LockOwner | undefined): string {
  return owner ? `${file} is held by process ${owner.pid} on ${owner.host} since ${owner.acquired}` : `${file} is held by another program`;
}
