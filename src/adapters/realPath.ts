import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Whether `file`, with every symbolic link resolved, lies inside `root` (false when it does not exist). */
export async function insideRealRoot(root: string, file: string): Promise<boolean> {
  const [realRoot, realFile] = await Promise.all([fs.realpath(root), fs.realpath(file)]).catch(() => [undefined, undefined]);
  if (!realRoot || !realFile) return false;
  const relative = path.relative(realRoot, realFile);
  return !relative.startsWith('..') && !path.isAbsolute(relative);
}
