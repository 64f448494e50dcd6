import { DriftEngine } from '../../core/drift/driftEngine';
import type { TypeFingerprints } from '../../core/drift/symbols';
import type { FileSystem } from '../../core/ports';
import { SourceParser } from '../sourceParser';
import { WorkspaceSearch, type TextFinder } from '../workspaceSearch';

/** The drift engine of one workspace folder, as the worker and the CLI build it; TypeScript loads with this module. */
export function createDriftEngine(root: string, files: FileSystem, parser = new SourceParser(), types?: TypeFingerprints, finder?: TextFinder): { engine: DriftEngine; search: WorkspaceSearch; parser: SourceParser } {
  const search = new WorkspaceSearch(root, files, finder);
  return { engine: new DriftEngine(root, files, parser, search, types), search, parser };
}
