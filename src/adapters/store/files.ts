import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { WikiError } from '../../core/errors';

/** File helpers for the conversation store: durable writes and errors that say what to do. */

export const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Makes a create, rename or unlink in `dir` durable. Windows cannot open a folder; its renames are durable already. */
export async function syncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * Writes `data` to a temp file beside `file`, syncs it, then renames it over `file` only if
 * `mayReplace()` still agrees (the caller re-checks its lock there). Returns whether it replaced.
 */
export async function replaceFileAtomic(file: string, data: Uint8Array, mayReplace: () => Promise<boolean>): Promise<boolean> {
  const temp = tempPath(file);
  try {
    const handle = await fs.open(temp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!(await mayReplace())) {
      await fs.rm(temp, { force: true });
      return false;
    }
    await fs.rename(temp, file);
    await syncDir(path.dirname(file));
    return true;
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw storageError(file, error);
  }
}

const tempPrefix = (file: string) => `.${path.basename(file)}.tmp-`;

/** A temp file beside `file`, named after this process so that leftovers of a crash can be told apart. */
export const tempPath = (file: string): string => path.join(path.dirname(file), `${tempPrefix(file)}${process.pid}-${randomBytes(4).toString('hex')}`);

/** Deletes temp files beside `file` left by processes that no longer run (killed mid-write). */
export async function removeLeftoverTemps(file: string): Promise<void> {
  const prefix = tempPrefix(file);
  const dir = path.dirname(file);
  for (const name of await fs.readdir(dir)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number.parseInt(name.slice(prefix.length), 10);
    if (pid !== process.pid && !processAlive(pid)) await fs.rm(path.join(dir, name), { force: true });
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by another user
  }
}

/** Identifies one version of a file: an atomic replace changes the inode, a rewrite the size or time. */
export async function fileIdentity(file: string): Promise<string | undefined> {
  try {
    const stat = await fs.stat(file);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** A file system failure as a WikiError; chat history lives outside the repository, in VS Code's storage. */
export function storageError(file: string, error: unknown): WikiError {
  if (error instanceof WikiError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    return new WikiError('read-only', `Cannot write the chat history file ${file}: access is denied (${code}).`, 'Check the permissions of that folder (VS Code\'s workspace storage). Saved conversations were not changed.');
  }
  if (code === 'ENOSPC') {
    return new WikiError('write-failed', `Cannot write the chat history file ${file}: the disk is full.`, 'Free some space and ask again. Saved conversations were not changed.');
  }
  return new WikiError('write-failed', `Cannot write the chat history file ${file}: ${(error as Error).message}`, 'Saved conversations were not changed.');
}
