import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMissing } from '../../core/errors';

/** A watch on the entries of one folder (not recursive). */
export interface FolderWatch {
  readonly closed: boolean;
  close(): void;
}

/**
 * Watches the files directly inside `dir`, when it is a real folder (a link is never followed).
 * The watch closes itself when the folder goes away or fails; `closed` then says to make a new one.
 * Undefined when `dir` is not a folder now.
 */
export function watchFolder(dir: string, onChange: (file: string) => void, onError: (error: Error) => void): FolderWatch | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    if (isMissing(error)) return undefined; // not there (yet): the caller tries again on the next change
    onError(error as Error); // there, but not to be looked at: say why nothing is watched
    return undefined;
  }
  if (!stat.isDirectory()) return undefined;
  let watcher: fs.FSWatcher;
  try {
    watcher = fs.watch(dir, { persistent: false });
  } catch (error) {
    onError(error as Error);
    return undefined;
  }
  const watch = {
    closed: false,
    close() {
      watch.closed = true;
      watcher.close();
    },
  };
  watcher.on('change', (_event, name) => {
    try {
      if (!isFolder(dir, stat.ino)) watch.close(); // the folder itself was removed, replaced or renamed
    } catch (error) {
      // Cannot tell what is at `dir` now: stop watching, and say why.
      watch.close();
      onError(error as Error);
    }
    onChange(name ? path.join(dir, String(name)) : dir);
  });
  watcher.on('error', (error) => {
    watch.close();
    onError(error);
  });
  return watch;
}

/** Whether `dir` is still the folder with this inode; false when nothing is there, throws when it cannot be looked at. */
function isFolder(dir: string, inode: number): boolean {
  try {
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && stat.ino === inode;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}
