import { pagesCiting } from '../../core/drift/citations';
import type { CancellationFlag, CodeLocation, DriftEngine } from '../../core/drift/driftEngine';
import type { CitedCode, DriftBackend, DriftCheckOptions, ScopedDriftReport, SourcesChange } from '../../core/drift/driftBackend';
import { stampPage } from '../../core/drift/stamp';
import { whatChanged } from '../../core/drift/whatChanged';
import { WikiError } from '../../core/errors';
import { parsePage } from '../../core/pages/page';
import type { Wiki } from '../../core/wiki/wiki';
import { fileAtCommit, headCommit } from '../git/gitChanges';
import type { SourceParser } from '../sourceParser';
import type { WorkspaceSearch } from '../workspaceSearch';

/** Drift in this thread: the engine of one workspace folder, for the drift worker, the CLI and the MCP server. */
export class LocalDriftBackend implements DriftBackend {
  constructor(
    private readonly wiki: Wiki,
    readonly engine: DriftEngine,
    private readonly search: WorkspaceSearch,
    private readonly parser: SourceParser,
  ) {}

  async check(options: DriftCheckOptions = {}, signal?: AbortSignal): Promise<ScopedDriftReport> {
    const { wiki, engine } = this;
    if (options.fresh) engine.invalidateAll();
    const texts = options.texts ?? {};
    // A save re-checks a few pages: read only those, not the whole wiki.
    const loaded = await wiki.loadPages(options.slugs ? { slugs: options.slugs } : {});
    const selected = loaded.map((page) => (page.slug in texts ? parsePage(page.relPath, page.slug, new TextEncoder().encode(texts[page.slug])) : page));
    const pages = options.slugs?.map((slug) => wiki.relative(wiki.pagePath(slug)));
    return { ...(await engine.check(selected, cancellation(signal))), pages };
  }

  async sourcesChanged(change: SourcesChange, signal?: AbortSignal): Promise<ScopedDriftReport> {
    const { wiki, engine } = this;
    for (const path of change.paths) engine.invalidate(path);
    if (change.listChanged) this.search.reset();
    // A created or deleted file can resolve a moved symbol anywhere: re-check everything then.
    if (change.listChanged) return engine.check(await wiki.loadPages(), cancellation(signal));
    // A save: the caller names the pages citing the files (from its own snapshot), so the rest of the wiki is not read.
    const candidates = await wiki.loadPages(change.citing ? { slugs: change.citing } : {});
    const paths = new Set(change.paths);
    const citing = pagesCiting(candidates, paths);
    // Only their citations into the saved files can have changed; the caller keeps the pages' other issues.
    const report = await engine.check(citing, cancellation(signal), (citation) => paths.has(citation.path));
    return { ...report, pages: citing.map((page) => page.relPath), paths: change.paths };
  }

  async locate(citation: CitedCode): Promise<CodeLocation | undefined> {
    const found = await this.engine.locate(citation);
    return found && { path: found.path, line: found.line, ...(found.endLine !== undefined ? { endLine: found.endLine } : {}), ...(found.symbol ? { symbol: found.symbol } : {}), ...(found.folder ? { folder: found.folder } : {}) };
  }

  currentAnchor(citation: CitedCode & { outside: boolean }): Promise<string | undefined> {
    return this.engine.currentAnchor(citation);
  }

  async symbolsOf(relPath: string, text: string) {
    await this.parser.prepare(relPath);
    return [...this.parser.parse(relPath, text).symbols.values()];
  }

  async stamp(slug: string, options: { citations?: string[]; onlyMissing?: boolean } = {}) {
    const page = await this.wiki.readPage(slug);
    if (!page) throw new WikiError('invalid-page', `There is no page "${slug}".`);
    return stampPage(this.wiki, this.engine, page, { ...options, verifiedAt: await headCommit(this.wiki.root) });
  }

  whatChanged(citation: CitedCode & { text: string }, anchor?: string) {
    return whatChanged(this.engine, (commit, relPath) => fileAtCommit(this.wiki.root, commit, relPath), citation, anchor);
  }
}

function cancellation(signal: AbortSignal | undefined): CancellationFlag | undefined {
  return signal && { get cancelled() { return signal.aborted; } };
}
