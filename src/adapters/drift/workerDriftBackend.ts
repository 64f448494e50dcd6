import type { CitedCode, DriftBackend, DriftCheckOptions, ScopedDriftReport, SourcesChange } from '../../core/drift/driftBackend';
import type { CodeLocation } from '../../core/drift/driftEngine';
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

  async locate(citation: CitedCode): Promise<CodeLocation | undefined> {
    return (await (await this.client()).request({ kind: 'locate', root: this.root, ...citedCode(citation) })) ?? undefined;
  }

  async currentAnchor(citation: CitedCode & { outside: boolean }): Promise<string | undefined> {
    return (await (await this.client()).request({ kind: 'anchor', root: this.root, ...citedCode(citation), outside: citation.outside })) ?? undefined;
  }

  async symbolsOf(relPath: string, text: string): Promise<readonly SourceSymbol[]> {
    return (await this.client()).request({ kind: 'symbols', root: this.root, path: relPath, text });
  }

  async stamp(slug: string, options: { citations?: string[]; onlyMissing?: boolean } = {}): Promise<StampResult> {
    return (await this.client()).request({ kind: 'stamp', root: this.root, slug, ...options });
  }

  async whatChanged(citation: CitedCode & { text: string }, anchor?: string): Promise<WhatChanged> {
    return (await this.client()).request({ kind: 'whatChanged', root: this.root, citation: { text: citation.text, ...citedCode(citation) }, anchor });
  }
}

/** Only what names the cited code crosses to the worker (a page's Citation also carries its range). */
function citedCode(citation: CitedCode): CitedCode {
  const { path, symbol, lines, folder } = citation;
  return { path, ...(symbol ? { symbol } : {}), ...(lines ? { lines } : {}), ...(folder ? { folder } : {}) };
}
