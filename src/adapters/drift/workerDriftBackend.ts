import type { CitedCode, DriftBackend, DriftCheckOptions, ScopedDriftReport, SourcesChange } from '../../core/drift/driftBackend';
import type { StampResult } from '../../core/drift/stamp';
import type { SourceSymbol } from '../../core/drift/symbols';
import type { WhatChanged } from '../../core/drift/whatChanged';
import type { DriftClient } from './driftClient';

/** Drift of one workspace folder in the drift worker: each call is one typed request, started on first use. */
export class WorkerDriftBackend implements DriftBackend {
  constructor(
    private readonly client: () => Promise<DriftClient>,
    private readonly root: string,
  ) {}

  async check(options: DriftCheckOptions = {}, signal?: AbortSignal): Promise<ScopedDriftReport> {
    return (await this.client()).request({ kind: 'check', root: this.root, ...options }, signal);
  }

  async sourcesChanged(change: SourcesChange, signal?: AbortSignal): Promise<ScopedDriftReport> {
    return (await this.client()).request({ kind: 'sourcesChanged', root: this.root, ...change }, signal);
  }

  async locate(citation: CitedCode): Promise<{ path: string; line: number; symbol?: string } | undefined> {
    return (await (await this.client()).request({ kind: 'locate', root: this.root, path: citation.path, symbol: citation.symbol })) ?? undefined;
  }

  async currentAnchor(citation: CitedCode & { outside: boolean }): Promise<string | undefined> {
    return (await (await this.client()).request({ kind: 'anchor', root: this.root, path: citation.path, symbol: citation.symbol, outside: citation.outside })) ?? undefined;
  }

  async symbolsOf(relPath: string, text: string): Promise<readonly SourceSymbol[]> {
    return (await this.client()).request({ kind: 'symbols', root: this.root, path: relPath, text });
  }

  async stamp(slug: string, options: { citations?: string[]; onlyMissing?: boolean } = {}): Promise<StampResult> {
    return (await this.client()).request({ kind: 'stamp', root: this.root, slug, ...options });
  }

  async whatChanged(citation: CitedCode & { text: string }, anchor?: string): Promise<WhatChanged> {
    return (await this.client()).request({ kind: 'whatChanged', root: this.root, citation: { text: citation.text, path: citation.path, symbol: citation.symbol }, anchor });
  }
}
