import type { Clock } from '../core/ports';
import { Wiki } from '../core/wiki/wiki';
import { WorkspaceFiles } from './files/workspaceFiles';

export const systemClock: Clock = { now: () => new Date() };

/**
 * The core of one workspace folder as every front end builds it (extension, drift worker, CLI):
 * its wiki over the guarded file access. `syncReads` suits the worker and the CLI, never the
 * extension host's main thread.
 */
export function openWorkspace(root: string, options: { syncReads?: boolean } = {}): { wiki: Wiki; files: WorkspaceFiles } {
  const files = new WorkspaceFiles(root, options);
  return { wiki: new Wiki(root, files, systemClock), files };
}
