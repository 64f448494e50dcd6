import type { LineRange } from './citations';
import type { CodeLocation, DriftReport } from './driftEngine';
import type { ReportScope } from './issueScope';
import type { StampResult } from './stamp';
import type { SourceSymbol } from './symbols';
import type { WhatChanged } from './whatChanged';

/** A drift report with what it covers (pages workspace-relative); no `pages` means the whole wiki. */
export interface ScopedDriftReport extends DriftReport, ReportScope {}

export interface DriftCheckOptions {
  /** Only these pages; all of them when omitted. */
  slugs?: string[];
  /** Unsaved page text by slug, checked instead of the file on disk. */
  texts?: Record<string, string>;
  /** Read every cited file again first (upkeep, whose verdicts change page status, never trusts a watcher's cache). */
  fresh?: boolean;
}

/** Source files saved, created or deleted; `citing` names the pages the caller knows cite them, so only those are read. */
export interface SourcesChange {
  paths: string[];
  listChanged: boolean;
  citing?: string[];
}

/** What a citation names: a file, a symbol or key in it, a line range of it, or a folder. */
export interface CitedCode {
  path: string;
  symbol?: string;
  lines?: LineRange;
  folder?: true;
}

/**
 * Drift analysis of one workspace folder, wherever it runs: the engine in this thread (the drift
 * worker itself, the CLI, the MCP server) or the drift worker (the extension host, which never
 * parses on its main thread). Every front end reaches drift through this one interface.
 */
export interface DriftBackend {
  check(options?: DriftCheckOptions, signal?: AbortSignal): Promise<ScopedDriftReport>;
  /** Forgets the changed files, then re-checks the pages that cite them (every page when files came or went). */
  sourcesChanged(change: SourcesChange, signal?: AbortSignal): Promise<ScopedDriftReport>;
  /** Where a citation's code is now (after re-exports: the file and name it has there); undefined when it does not resolve. */
  locate(citation: CitedCode): Promise<CodeLocation | undefined>;
  /** The fingerprint a citation would be stamped with now; '' for a folder (nothing to record); undefined when it does not resolve. */
  currentAnchor(citation: CitedCode & { outside: boolean }): Promise<string | undefined>;
  /** The declarations of a file's text, as drift parses them. */
  symbolsOf(relPath: string, text: string): Promise<readonly SourceSymbol[]>;
  /** Records the current fingerprints of a page's citations (all, or `citations`) and the commit they were verified at. */
  stamp(slug: string, options?: { citations?: string[]; onlyMissing?: boolean }): Promise<StampResult>;
  /** The cited code at the commit its anchor records, and now. */
  whatChanged(citation: CitedCode & { text: string }, anchor?: string): Promise<WhatChanged>;
}
