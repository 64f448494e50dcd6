import type { DriftCheckOptions, ScopedDriftReport, SourcesChange } from '../../core/drift/driftBackend';
import type { StampResult } from '../../core/drift/stamp';
import type { SourceSymbol } from '../../core/drift/symbols';
import type { WhatChanged } from '../../core/drift/whatChanged';

/** Requests WorkerDriftBackend sends to the drift worker, one per DriftBackend method; every one names its workspace folder. */
export type DriftRequest =
  | ({ kind: 'check'; root: string } & DriftCheckOptions)
  | ({ kind: 'sourcesChanged'; root: string } & SourcesChange)
  | { kind: 'stamp'; root: string; slug: string; citations?: string[]; onlyMissing?: boolean }
  | { kind: 'locate'; root: string; path: string; symbol?: string }
  | { kind: 'symbols'; root: string; path: string; text: string }
  | { kind: 'whatChanged'; root: string; citation: { text: string; path: string; symbol?: string }; anchor?: string }
  | { kind: 'anchor'; root: string; path: string; symbol?: string; outside: boolean };

/** What each request answers; `null` where the backend says undefined (structured clone keeps both, JSON does not). */
export interface DriftResponses {
  check: ScopedDriftReport;
  sourcesChanged: ScopedDriftReport;
  stamp: StampResult;
  locate: { path: string; line: number; symbol?: string } | null;
  symbols: SourceSymbol[];
  anchor: string | null;
  whatChanged: WhatChanged;
}

export type ToWorker = { id: number; request: DriftRequest } | { id: number; cancel: true };
export type FromWorker = { id: number; result: unknown } | { id: number; error: { message: string; code?: string; hint?: string } };
