import type { DriftBackend } from './drift/driftBackend';
import type { WikiPage } from './model';
import type { Clock, FileSystem } from './ports';
import { ProposalStore, type ProposalContext } from './proposals';
import type { RepoMap } from './map/repoMap';
import { createWikiTools, type CodeSearch, type WikiTool } from './tools';
import type { Wiki } from './wiki/wiki';

/** What a front end builds from its own adapters for one workspace folder. */
export interface CoreParts {
  wiki: Wiki;
  /** The guarded file access of the folder: every read of pages, sources and cited code goes through it. */
  files: FileSystem;
  /** Drift here (worker, CLI, MCP) or in the drift worker (extension host). */
  drift: DriftBackend;
  /** Text search over the workspace (ripgrep). */
  search: CodeSearch;
  clock: Clock;
  /** The ranked repository map, read and parsed as drift reads and parses. */
  map?: RepoMap;
  /** The readable pages, where the front end already holds them (the extension's snapshots); loaded from the wiki otherwise. */
  pages?(): Promise<readonly WikiPage[]>;
  /** Page ages from git, where the front end keeps them. */
  ages?(pages: readonly WikiPage[]): Promise<ReadonlyMap<string, string>>;
}

/** The core of one workspace folder, the same for every front end: extension, drift worker, CLI and MCP server. */
export interface WorkspaceCore {
  readonly root: string;
  readonly wiki: Wiki;
  readonly files: FileSystem;
  readonly drift: DriftBackend;
  /** The wiki's pages; the same array while no page changed, so retrieval indexes are reused. */
  pages(): Promise<readonly WikiPage[]>;
  /** Pending agent proposals and what reviewing them needs (drift resolves their citations). */
  readonly proposals: ProposalContext;
  /** The read-only tools; `ages` tags pages with their age from git, overriding the parts' own. */
  tools(options?: { ages?: CoreParts['ages'] }): readonly WikiTool[];
  /** The ranked repository map, when the front end has one (generate drafts its outline from it). */
  readonly map?: RepoMap;
}

/** The one factory of a workspace folder's core. */
export function assembleCore(parts: CoreParts): WorkspaceCore {
  const { wiki, files, drift, search } = parts;
  const pages = parts.pages ?? sameArrayWhileUnchanged(wiki);
  let tools: readonly WikiTool[] | undefined;
  const toolsWith = (ages: CoreParts['ages']) =>
    createWikiTools({ wiki, pages, ...(ages ? { ages } : {}), drift, files, symbolsOf: (relPath, text) => drift.symbolsOf(relPath, text), search, ...(parts.map ? { map: parts.map } : {}) });
  return {
    root: wiki.root,
    wiki,
    files,
    drift,
    pages,
    proposals: { wiki, store: new ProposalStore(wiki.dir, files), resolver: drift, clock: parts.clock },
    tools: (options = {}) => (options.ages ? toolsWith(options.ages) : (tools ??= toolsWith(parts.ages))),
    ...(parts.map ? { map: parts.map } : {}),
  };
}

/** Unchanged pages come back from the wiki as the same objects: keep the array, and whatever was built on it. */
function sameArrayWhileUnchanged(wiki: Wiki): () => Promise<readonly WikiPage[]> {
  let last: readonly WikiPage[] = [];
  return async () => {
    const loaded = await wiki.loadPages();
    if (loaded.length !== last.length || loaded.some((page, i) => page !== last[i])) last = loaded;
    return last;
  };
}
