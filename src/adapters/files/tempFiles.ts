import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Temp files beside the file they become, named after the process that made them, so that the
 * leftovers of a process killed midway can be told from those of one still writing.
 */

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
