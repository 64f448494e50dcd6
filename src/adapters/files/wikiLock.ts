import { WikiError } from '../../core/errors';
import { FileLock } from './lockFile';

/**
 * The wiki's write lock (.wiki/.cache/write.lock, see Wiki.lockPath), on the shared lock core
 * (lockFile.ts). What is the wiki's own: a lock older than 30 s is taken over, a writer waits up to
 * 15 s for it, and then fails with a `wiki-busy` error naming the holder and the lock file. The file
 * comes from a clone too, so the core reads it as untrusted (never through a link, never a FIFO).
 */

/** A write lock older than this is taken over (its holder hung or died on another host). */
export const WIKI_LOCK_STALE_MS = 30_000;
/** How long a write waits for another window or command to finish. */
export const WIKI_LOCK_WAIT_MS = 15_000;

/** Runs `work` holding the lock at `file` (its folder must exist); `shown` names it in messages. */
export async function withWikiLock<T>(file: string, shown: string, waitMs: number, work: () => Promise<T>): Promise<T> {
  const attempt = await FileLock.acquire(file, { shown, role: "the wiki's write lock", rival: 'process', staleMs: WIKI_LOCK_STALE_MS }, waitMs);
  if ('busy' in attempt) {
    throw new WikiError('wiki-busy', `The wiki is being written by another Repo Wiki window or command (${attempt.busy}).`, `Try again when it has finished. If nothing else is running Repo Wiki, delete ${shown}.`);
  }
  try {
    return await work();
  } finally {
    attempt.lock.release();
  }
}
