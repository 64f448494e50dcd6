import { FileLock, type LockAttempt, type LockOptions } from '../files/lockFile';

/**
 * The chat history's lock (conversations.lock in VS Code's storage), held while compacting the
 * journal or setting a damaged database aside, on the shared lock core (files/lockFile.ts). What is
 * the store's own: its stale time (a setting), messages that name the file by its full path and
 * another "window" as the rival, and the store-busy errors its callers make of a busy answer.
 */

const storeLock = (file: string, staleMs: number): LockOptions => ({ shown: file, role: "the chat history's lock", rival: 'window', staleMs });

/** Takes the lock, or says who holds it. Never waits. */
export function tryStoreLock(file: string, staleMs: number): LockAttempt {
  return FileLock.tryAcquire(file, storeLock(file, staleMs));
}

/** Waits up to `waitMs` for the lock: another window's compaction takes well under a second. */
export function waitForStoreLock(file: string, staleMs: number, waitMs: number): Promise<LockAttempt> {
  return FileLock.acquire(file, storeLock(file, staleMs), waitMs);
}
