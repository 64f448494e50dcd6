import type { DriftReport } from '../../core/drift/driftEngine';
import type { ReportScope } from '../../core/drift/issueScope';
import type { StampResult } from '../../core/drift/stamp';
import type { SourceSymbol } from '../../core/drift/symbols';
import type { WhatChanged } from '../../core/drift/whatChanged';

/** Requests the extension host sends to the drift worker; every one names its workspace folder. */
export type DriftRequest =
  /** `texts` holds unsaved page text by slug; it is checked instead of the file on disk. */
  /** `fresh`: read every cited file again first (upkeep, whose verdicts change page status, never trusts the watcher's cache). */
  | { kind: 'check'; root: string; slugs?: string[]; texts?: Record<string, string>; fresh?: boolean }
  /**
   * Source files saved, created or deleted: forgets them, then re-checks the pages that cite them
   * (every page when files came or went). `citing`: the slugs of the pages the host's snapshot says
   * cite them, so the worker reads only those.
   */
  | { kind: 'sourcesChanged'; root: string; paths: string[]; listChanged: boolean; citing?: string[] }
  | { kind: 'stamp'; root: string; slug: string; citations?: string[]; onlyMissing?: boolean }
  | { kind: 'locate'; root: string; path: string; symbol?: string }
  | { kind: 'symbols'; root: string; path: string; text: string }
  /** The cited code at the commit its anchor records, and now. */
  | { kind: 'whatChanged'; root: string; citation: { text: string; path: string; symbol?: string }; anchor?: string }
  /** The fingerprint a citation would be stamped with now; null when it does not resolve. */
  | { kind: 'anchor'; root: string; path: string; symbol?: string; outside: boolean };

/** A drift report with what it covers (pages workspace-relative); no `pages` means the whole wiki. */
export interface ScopedDriftReport extends DriftReport, ReportScope {}

export interface DriftResponses {
  check: ScopedDriftReport;
  sourcesChanged: ScopedDriftReport;
  stamp: StampResult;
  locate: { path: string; line: number } | null;
  symbols: SourceSymbol[];
  anchor: string | null;
  whatChanged: WhatChanged;
}

export type ToWorker = { id: number; request: DriftRequest } | { id: number; cancel: true };
export type FromWorker = { id: number; result: unknown } | { id: number; error: { message: string; code?: string; hint?: string } };
