// What kind of file a path is, and finding programs on the PATH: stat calls only, no content read.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The first of `candidates` that is an executable file. */
export function firstExecutable(candidates: readonly (string | undefined)[]): string | undefined {
  return candidates.find((candidate): candidate is string => !!candidate && isExecutable(candidate));
}

/** Where `name` is found on the PATH (with Windows' extensions there), as a shell would find it. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const names = process.platform === 'win32' ? ['.exe', '.cmd', '.bat', ''].map((extension) => name + extension) : [name];
  const dirs = (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean);
  return firstExecutable(dirs.flatMap((dir) => names.map((file) => path.join(dir, file))));
}

/** Whether `dir` is a folder itself, not a link to one (a link could lead anywhere). */
export function isFolder(dir: string): boolean {
  try {
    return fs.lstatSync(dir).isDirectory();
  } catch {
    return false; // not there, or not readable: no folder to use
  }
}

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false; // not there, or not runnable: try the next place
  }
}
