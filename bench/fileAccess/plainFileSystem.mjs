// The baseline: the file system adapter as it was before the file-access checks (no lstat, no
// real-path check, no size cap, no lock), kept here so the bench measures what the checks cost.
// It implements every method of the FileSystem port (src/core/ports.ts), so the code under test runs on it.
import { randomBytes } from 'node:crypto';
import { promises as fs, readFile, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import * as path from 'node:path';

const readFileCallback = promisify(readFile);

export class PlainFileSystem {
  constructor({ syncReads = false } = {}) {
    this.syncReads = syncReads;
  }

  async readFile(file) {
    return this.syncReads ? readFileSync(file) : readFileCallback(file);
  }

  /** No version: the bench reads with a fresh Wiki each run, which never asks for one again. */
  async readVersioned(file) {
    return { bytes: await this.readFile(file) };
  }

  async writeFileAtomic(file, data, options = {}) {
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.rwtmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    const handle = await fs.open(temp, 'w');
    try {
      await handle.writeFile(data, 'utf8');
      if (options.durable !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  }

  async appendFile(file, data) {
    await fs.appendFile(file, data, { encoding: 'utf8', flush: true });
  }

  async stat(file) {
    try {
      const stat = await fs.stat(file);
      return { size: stat.size, isFile: stat.isFile(), isDirectory: stat.isDirectory() };
    } catch (error) {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    }
  }

  readdir(dir) {
    return fs.readdir(dir);
  }

  async mkdir(dir) {
    await fs.mkdir(dir, { recursive: true });
  }

  /** The entry itself, as the port's remove: false when there was none. */
  async remove(file) {
    try {
      await fs.unlink(file);
      return true;
    } catch (error) {
      if (error.code === 'ENOENT') return false;
      throw error;
    }
  }

  async assertWritable() {}

  withLock(_lockPath, work) {
    return work();
  }
}
