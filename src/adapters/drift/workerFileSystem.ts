import { readFileSync } from 'node:fs';
import { NodeFileSystem } from '../nodeFileSystem';

/**
 * The file system for drift analysis off the UI thread (the worker, the CLI): reads are
 * synchronous, which skips a thread-pool round trip per cited file. Never use it on the
 * extension host's main thread.
 */
export class WorkerFileSystem extends NodeFileSystem {
  override async readFile(file: string): Promise<Uint8Array> {
    return readFileSync(file);
  }
}
