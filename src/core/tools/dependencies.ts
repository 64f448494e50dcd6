import type { DriftBackend } from '../drift/driftBackend';
import type { SourceSymbol } from '../drift/symbols';
import type { WikiPage } from '../model';
import type { FileSystem } from '../ports';
import type { RepoMap } from '../map/repoMap';
import type { Wiki } from '../wiki/wiki';
import type { CodeSearch } from './codeSearch';

/** What the tools of one workspace folder read through; each front end builds these from its own adapters. */
export interface ToolDependencies {
  /** The wiki of the workspace folder; `root` is the folder every path is relative to. */
  wiki: Pick<Wiki, 'root' | 'readPage'>;
  /** The readable pages, as the front end already holds them: called on every search, so it should be cheap. */
  pages(): Promise<readonly WikiPage[]>;
  /** Slug → age tag ("stable for 3 months (+2)") for these pages; omitted where git cannot tell. */
  ages?(pages: readonly WikiPage[]): Promise<ReadonlyMap<string, string>>;
  /** `locate` resolves a citation as drift does (through re-exports), for read_code. */
  drift: Pick<DriftBackend, 'check' | 'locate'>;
  /** The guarded file access: reads stay in the workspace, never a secret, a link out or a FIFO. */
  files: Pick<FileSystem, 'readFile'>;
  /** Declarations of a file, as drift parses them. */
  symbolsOf(relPath: string, text: string): Promise<readonly SourceSymbol[]>;
  search: CodeSearch;
  /** The ranked repository map, kept for the life of the core (its facts are cached by file); repo_map says it is unavailable without it. */
  map?: Pick<RepoMap, 'map'>;
  /** How long one tool call may run before it answers that it timed out; TOOL_DEADLINE_MS (20 s) unless given. */
  deadlineMs?: number;
}
