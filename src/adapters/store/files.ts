import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isMissing, WikiError } from '../../core/errors';
import { tempPath } from '../files/tempFiles';

/** File helpers for the conversation store: durable writes and errors that say what to do. */

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
export async function replaceFileAtomic(file: string, data: Uint8Array, mayReplace: () => boolean | Promise<boolean>): Promise<boolean> {
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
