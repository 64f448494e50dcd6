import type { CitedCode, DriftCheckOptions, ScopedDriftReport, SourcesChange } from '../../core/drift/driftBackend';
import type { CodeLocation } from '../../core/drift/driftEngine';
import type { StampResult } from '../../core/drift/stamp';
import type { SourceSymbol } from '../../core/drift/symbols';
import type { WhatChanged } from '../../core/drift/whatChanged';

/** Requests WorkerDriftBackend sends to the drift worker, one per DriftBackend method; every one names its workspace folder. */
export type DriftRequest =
  | ({ kind: 'check'; root: string } & DriftCheckOptions)
  | ({ kind: 'sourcesChanged'; root: string } & SourcesChange)
  | { kind: 'stamp'; root: string; slug: string; citations?: string[]; onlyMissing?: boolean }
  | ({ kind: 'locate'; root: string } & CitedCode)
  | { kind: 'symbols'; root: string; path: string; text: string }
  | { kind: 'whatChanged'; root: string; citation: CitedCode & { text: string }; anchor?: string }
  | ({ kind: 'anchor'; root: string; outside: boolean } & CitedCode);

/** What each request answers; `null` where the backend says undefined (structured clone keeps both, JSON does not). */
export interface DriftResponses {
  check: ScopedDriftReport;
  sourcesChanged: ScopedDriftReport;
  stamp: StampResult;
  locate: CodeLocation | null;
  symbols: SourceSymbol[];
  anchor: string | null;
  whatChanged: WhatChanged;
}

export type ToWorker = { id: number; request: DriftRequest } | { id: number; cancel: true };
export type FromWorker = { id: number; result: unknown } | { id: number; error: { message: string; code?: string; hint?: string } };
