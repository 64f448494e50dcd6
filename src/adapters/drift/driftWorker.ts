// Worker-thread entry: drift analysis (TypeScript parsing included) runs here, off the extension host's main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { pagesCiting } from '../../core/drift/citations';
import { stampPage } from '../../core/drift/stamp';
import { whatChanged } from '../../core/drift/whatChanged';
import { WikiError } from '../../core/errors';
import { parsePage } from '../../core/pages/page';
import { SourceParser } from '../sourceParser';
import { fileAtCommit, headCommit } from '../git/gitChanges';
import { openWorkspaceCore, type WorkspaceCore } from '../workspaceCore';
import type { DriftRequest, FromWorker, ScopedDriftReport, ToWorker } from './protocol';

const parser = new SourceParser();
const folders = new Map<string, WorkspaceCore>();
const cancelled = new Set<number>();

function folder(root: string) {
  let entry = folders.get(root);
  if (!entry) {
    // Off the extension host's main thread: the core's blocking reads skip a thread-pool round trip per file.
    entry = openWorkspaceCore(root, { parser, semantic: (workerData as { semantic?: boolean } | null)?.semantic === true });
    folders.set(root, entry);
  }
  return entry;
}

async function handle(id: number, request: DriftRequest): Promise<unknown> {
  const { wiki, drift: engine, symbolSearch: search } = folder(request.root);
  const flag = { get cancelled() { return cancelled.has(id); } };
  switch (request.kind) {
    case 'check': {
      if (request.fresh) engine.invalidateAll();
      const texts = request.texts ?? {};
      // A save re-checks a few pages: read only those, not the whole wiki.
      const loaded = await wiki.loadPages(request.slugs ? { slugs: request.slugs } : {});
      const selected = loaded.map((page) => (page.slug in texts ? parsePage(page.relPath, page.slug, new TextEncoder().encode(texts[page.slug])) : page));
      const pages = request.slugs?.map((slug) => wiki.relative(wiki.pagePath(slug)));
      return { ...(await engine.check(selected, flag)), pages } satisfies ScopedDriftReport;
    }
    case 'sourcesChanged': {
      for (const path of request.paths) engine.invalidate(path);
      if (request.listChanged) search.reset();
      // A created or deleted file can resolve a moved symbol anywhere: re-check everything then.
      if (request.listChanged) return await engine.check(await wiki.loadPages(), flag) satisfies ScopedDriftReport;
      // A save: the host names the pages citing the files (from its own snapshot), so the rest of the wiki is not read.
      const candidates = await wiki.loadPages(request.citing ? { slugs: request.citing } : {});
      const paths = new Set(request.paths);
      const citing = pagesCiting(candidates, paths);
      // Only their citations into the saved files can have changed; the host keeps the pages' other issues.
      const report = await engine.check(citing, flag, (citation) => paths.has(citation.path));
      return { ...report, pages: citing.map((page) => page.relPath), paths: request.paths } satisfies ScopedDriftReport;
    }
    case 'stamp': {
      const page = await wiki.readPage(request.slug);
      if (!page) throw new WikiError('invalid-page', `There is no page "${request.slug}".`);
      return stampPage(wiki, engine, page, { citations: request.citations, onlyMissing: request.onlyMissing, verifiedAt: await headCommit(request.root) });
    }
    case 'locate':
      return (await engine.locate({ path: request.path, symbol: request.symbol })) ?? null;
    case 'symbols':
      await parser.prepare(request.path);
      return [...parser.parse(request.path, request.text).symbols.values()];
    case 'whatChanged':
      return whatChanged(engine, (commit, relPath) => fileAtCommit(request.root, commit, relPath), request.citation, request.anchor);
    case 'anchor':
      return (await engine.currentAnchor({ path: request.path, symbol: request.symbol, outside: request.outside })) ?? null;
  }
}

parentPort?.on('message', (message: ToWorker) => {
  if ('cancel' in message) {
    cancelled.add(message.id);
    return;
  }
  handle(message.id, message.request).then(
    (result) => parentPort!.postMessage({ id: message.id, result } satisfies FromWorker),
    (error: unknown) => {
      const e = error as Partial<WikiError>;
      parentPort!.postMessage({ id: message.id, error: { message: e.message ?? String(error), code: e.code, hint: e.hint } } satisfies FromWorker);
    },
  ).finally(() => cancelled.delete(message.id));
});
