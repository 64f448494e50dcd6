import * as fs from 'node:fs';
import * as path from 'node:path';
import { assembleCore, type WorkspaceCore } from '../core/assembleCore';
import type { DriftEngine } from '../core/drift/driftEngine';
import type { TypeFingerprints } from '../core/drift/symbols';
import { RepoMap } from '../core/map/repoMap';
import { createDriftEngine } from './drift/driftCore';
import { LocalDriftBackend } from './drift/localDriftBackend';
import type { WorkspaceFiles } from './files/workspaceFiles';
import { SourceFactsReader } from './map/sourceFactsReader';
import { findRipgrep, RipgrepSearch } from './search/ripgrep';
import { SourceParser } from './sourceParser';
import { openWorkspace, systemClock } from './workspace';
import type { WorkspaceSearch } from './workspaceSearch';

/** The core with drift in this thread, and the engine's parts the CLI reaches for (fixes, diffs, changed-since). */
export interface LocalCore extends WorkspaceCore {
  readonly files: WorkspaceFiles;
  readonly drift: LocalDriftBackend;
  readonly engine: DriftEngine;
  /** The text search the drift engine finds moved symbols with; reset it when files come or go. */
  readonly symbolSearch: WorkspaceSearch;
  readonly parser: SourceParser;
  /** The ranked repository map, over drift's listing, parser and threads. */
  readonly map: RepoMap;
}

/**
 * The core as every front end that may block and parse builds it: the drift worker, the CLI and
 * the MCP server. Reads are synchronous (none of them runs on a UI thread) and every one goes
 * through the guarded file access. The extension host assembles its core over the drift worker.
 */
export function openLocalCore(root: string, options: { parser?: SourceParser; rgPath?: string; semantic?: boolean; watchedMap?: boolean } = {}): LocalCore {
  const { wiki, files } = openWorkspace(root, { syncReads: true });
  const ripgrep = new RipgrepSearch(root, { rgPath: options.rgPath });
  // With ripgrep, the engine's searches for moved symbols and barrels read no file in Node (5,000 files: 600 ms).
  const finder = (options.rgPath ?? findRipgrep()) ? (words: readonly string[]) => ripgrep.filesContainingAny(words) : undefined;
  const { engine, search, parser } = createDriftEngine(root, files, options.parser, options.semantic ? lazySemanticTypes(root, files) : undefined, finder);
  const drift = new LocalDriftBackend(wiki, engine, search, parser);
  // The map lists the files drift's searches list, and parses on drift's threads with drift's parser (and its caches).
  // Watched (the caller tells it of changes: map.filesChanged), it asks for the files only when some came or went: listed afresh.
  const listing = () => {
    if (options.watchedMap) search.reset();
    return search.sourceFiles();
  };
  const reader = new SourceFactsReader(root, files, listing, { threads: (paths) => parser.threads(paths), symbolsOf: (relPath, text) => drift.symbolsOf(relPath, text) });
  const map = new RepoMap(reader, { watched: options.watchedMap });
  const core = assembleCore({ wiki, files, drift, search: ripgrep, clock: systemClock, map });
  return { ...core, files, drift, engine, symbolSearch: search, parser, map };
}

/** Semantic mode's type fingerprints; ts-morph and the whole program load only when a type is first asked for. */
function lazySemanticTypes(root: string, files: WorkspaceFiles): TypeFingerprints {
  let types: TypeFingerprints | undefined;
  const load = () => (types ??= new (loadSemanticModule().SemanticTypes)(root, files));
  return { typeOf: (relPath, symbol) => load().typeOf(relPath, symbol), invalidate: (relPath) => types?.invalidate(relPath) };
}

/**
 * Semantic mode (ts-morph) is a bundle of its own next to the bundled worker and CLI, required only
 * when asked for; it shares dist/typescript.js with the TS/JS parser (see esbuild.mjs). From
 * compiled sources, the module itself.
 */
function loadSemanticModule(): typeof import('./typescript/semanticTypes') {
  const bundled = path.join(__dirname, 'semantic.js');
  return require(fs.existsSync(bundled) ? bundled : path.join(__dirname, 'typescript', 'semanticTypes'));
}
