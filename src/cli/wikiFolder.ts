import * as path from 'node:path';
import { isFolder } from '../adapters/files/fileKinds';

/** core/wiki/wiki.ts's WIKI_DIR, not imported: that module loads the page parser, which a command without a wiki never needs. */
const WIKI_DIR = '.wiki';

/**
 * The nearest folder at or above `start` that holds a `.wiki/` folder, as git finds `.git`; none
 * when no folder up to the file system's root has one. A `.wiki` that is a link or a file is no
 * wiki here: the wiki's own checks refuse it, and the search goes on to the folders above.
 */
export function findWikiFolder(start: string): string | undefined {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (isFolder(path.join(dir, WIKI_DIR))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}
