import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DriftEngine } from '../core/drift/driftEngine';
import type { SourceSymbol, TypeFingerprints } from '../core/drift/symbols';
import type { WikiPage } from '../core/model';
import { ProposalStore, type ProposalContext } from '../core/proposals';
import { createWikiTools, type WikiTool } from '../core/tools';
import type { Wiki } from '../core/wiki/wiki';
import { createDriftEngine } from './drift/driftCore';
import type { WorkspaceFiles } from './files/workspaceFiles';
import { RipgrepSearch } from './search/ripgrep';
import { SourceParser } from './sourceParser';
import { openWorkspace, systemClock } from './workspace';
import type { WorkspaceSearch } from './workspaceSearch';

/** The core of one workspace folder: the wiki, its drift engine and the read-only tools over them. */
export interface WorkspaceCore {
  readonly root: string;
  readonly wiki: Wiki;
  readonly files: WorkspaceFiles;
  readonly drift: DriftEngine;
  /** The text search the drift engine finds moved symbols with; reset it when files come or go. */
  readonly symbolSearch: WorkspaceSearch;
  readonly parser: SourceParser;
  symbolsOf(relPath: string, text: string): Promise<readonly SourceSymbol[]>;
  /** The wiki's pages; the same array while no page changed, so retrieval indexes are reused. */
  pages(): Promise<readonly WikiPage[]>;
  /** Pending agent proposals and what reviewing them needs (the drift engine resolves their citations). */
  readonly proposals: ProposalContext;
  /** The six tools; `ages` tags pages with their age from git where the front end knows it. */
  tools(options?: { ages?(pages: readonly WikiPage[]): Promise<ReadonlyMap<string, string>> }): WikiTool[];
}

/**
 * Builds the core the way every front end that may block and parse needs it: the drift worker,
 * the CLI and the MCP server. Reads are synchronous (none of them runs on a UI thread) and every
 * one goes through the guarded file access. The extension host keeps to `openWorkspace` and
 * reaches the rest through the drift worker.
 */
export function openWorkspaceCore(root: string, options: { parser?: SourceParser; rgPath?: string; semantic?: boolean } = {}): WorkspaceCore {
  const { wiki, files } = openWorkspace(root, { syncReads: true });
  const parser = options.parser ?? new SourceParser();
  const { engine, search } = createDriftEngine(root, files, parser, options.semantic ? lazySemanticTypes(root, files) : undefined);
  const symbolsOf = async (relPath: string, text: string) => {
    await parser.prepare(relPath);
    return [...parser.parse(relPath, text).symbols.values()];
  };
  let last: readonly WikiPage[] = [];
  const pages = async () => {
    const loaded = await wiki.loadPages();
    // Unchanged pages come back as the same objects: keep the array, and whatever was built on it.
    if (loaded.length !== last.length || loaded.some((page, i) => page !== last[i])) last = loaded;
    return last;
  };
  const codeSearch = new RipgrepSearch(root, { rgPath: options.rgPath });
  return {
    root: wiki.root, wiki, files, drift: engine, symbolSearch: search, parser, symbolsOf, pages,
    proposals: { wiki, store: new ProposalStore(wiki.dir, files), resolver: engine, clock: systemClock },
    tools: (toolOptions = {}) => createWikiTools({ wiki, pages, ...(toolOptions.ages ? { ages: toolOptions.ages } : {}), drift: engine, files, symbolsOf, search: codeSearch }),
  };
}

/** Semantic mode's type fingerprints; ts-morph and the whole program load only when a type is first asked for. */
function lazySemanticTypes(root: string, files: WorkspaceFiles): TypeFingerprints {
  let types: TypeFingerprints | undefined;
  const load = () => (types ??= new (loadSemanticModule().SemanticTypes)(root, files));
  return { typeOf: (relPath, symbol) => load().typeOf(relPath, symbol), invalidate: (relPath) => types?.invalidate(relPath) };
}

/**
 * ts-morph carries a TypeScript of its own, so semantic mode is a bundle of its own next to the
 * bundled worker and CLI, required only when asked for; from compiled sources, the module itself.
 */
function loadSemanticModule(): typeof import('./typescript/semanticTypes') {
  const bundled = path.join(__dirname, 'semantic.js');
  return require(fs.existsSync(bundled) ? bundled : path.join(__dirname, 'typescript', 'semanticTypes'));
}
