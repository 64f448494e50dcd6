import * as assert from 'node:assert/strict';
import { TokenBudget } from '../../../../src/core/generate/budget';
import { RunFailedError } from '../../../../src/core/generate/generate';
import { runLogged, updateLogEntry } from '../../../../src/core/generate/log';
import { driftedPages, updatePages, type UpdateDeps, type UpdateReport } from '../../../../src/core/generate/update';
import type { CitationResolver } from '../../../../src/core/ingest/changes';
import type { DriftIssue } from '../../../../src/core/drift/driftEngine';
import { messageText, type CompletionRequest, type LanguageModel, type StreamCallbacks } from '../../../../src/core/llm/languageModel';
import { Wiki } from '../../../../src/core/wiki/wiki';
import { fixedClock, MemoryFileSystem, pageText } from '../../../support/fakes';

const ROOT = '/ws';

const resolver: CitationResolver = {
  async currentAnchor(citation) {
    const known: Record<string, string> = { 'src/pipeline.ts:Pipeline.run': 'sig:11111111 body:99999999', 'src/pipeline.ts:Pipeline.runAll': 'sig:55555555 body:66666666' };
    return known[`${citation.path}:${citation.symbol}`];
  },
};

class ScriptedModel implements LanguageModel {
  readonly requests: CompletionRequest[] = [];
  constructor(private readonly replies: string[]) {}
  async complete(request: CompletionRequest, callbacks: StreamCallbacks) {
    this.requests.push(request);
    const text = this.replies.shift() ?? '{}';
    callbacks.onText(text);
    return { text, model: 'claude-test-1', inputTokens: 500, outputTokens: 100, stopReason: 'end_turn' };
  }
}

function issue(page: string, code: DriftIssue['code'], citation: string): DriftIssue {
  const [path, symbol] = citation.split(':');
  return { page: `.wiki/pages/${page}.md`, code, severity: 'info', message: `${citation} changed.`, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, data: { citation, path, symbol } } as DriftIssue;
}

async function setUp(replies: string[]) {
  const fs = new MemoryFileSystem();
  fs.write(`${ROOT}/.wiki/pages/pipeline.md`, pageText('Pipeline', '# Pipeline\n\n`src/pipeline.ts:Pipeline.run` runs each middleware once.\n', { anchors: `\n  "src/pipeline.ts:Pipeline.run": "sig:11111111 body:22222222 at:abcdef012345"` }));
  fs.write(`${ROOT}/.wiki/pages/untouched.md`, pageText('Untouched', '# Untouched\n\nNothing cited changed.\n'));
  fs.write(`${ROOT}/.wiki/log.jsonl`, '');
  const wiki = new Wiki(ROOT, fs, fixedClock());
  await wiki.rebuildIndex();
  const model = new ScriptedModel(replies);
  const restamped: { slug: string; citations: readonly string[] }[] = [];
  const deps: UpdateDeps = {
    wiki, model, budget: new TokenBudget(1_000_000), resolver, tools: [], today: '2026-11-28', commit: '0123456789ab0123456789ab0123456789ab0123',
    settings: { model: 'claude-test', maxTokens: 2000, maxToolRounds: 2, toolTokenBudget: 50_000 },
    restamp: async (slug, citations) => void restamped.push({ slug, citations }),
  };
  return { wiki, model, deps, restamped };
}

const DIFF = '--- a/src/pipeline.ts\n+++ b/src/pipeline.ts\n-    for (const m of this.middleware) await m();\n+    for (const m of this.middleware) await m(request);';

describe('generate --update', () => {
  it('sends only the drifted page, with the diff of its changed citation, and writes the smallest edit', async () => {
    const { wiki, model, deps } = await setUp([JSON.stringify({
      pages: [{ action: 'update', slug: 'pipeline', title: 'Pipeline', topic: 'architecture', summary: 'About Pipeline', tags: [], body: '# Pipeline\n\n`src/pipeline.ts:Pipeline.run` runs each middleware once, passing the request.', citations: [] }],
      corroborate: [], links: [],
    })]);
    const pages = await wiki.loadPages();
    const issues = [issue('pipeline', 'body-changed', 'src/pipeline.ts:Pipeline.run'), issue('untouched', 'unverified', 'src/x.ts:Y')];
    const drifted = driftedPages(pages, issues, (i) => (i.code === 'body-changed' ? DIFF : undefined));
    assert.deepEqual(drifted.map((d) => d.page.slug), ['pipeline'], 'an unverified citation is not drift an update revisits');
    const report = await updatePages(deps, drifted);
    assert.deepEqual([report.updated, report.restamped, report.rejected], [['pipeline'], [], []]);
    assert.equal(model.requests.length, 1);
    const sent = messageText(model.requests[0].messages[0]);
    assert.match(sent, /await m\(request\)/, 'the model receives the diff');
    assert.match(sent, /runs each middleware once/, 'and the page');
    assert.doesNotMatch(sent, /Untouched|Nothing cited changed/);
    const page = (await wiki.readPage('pipeline'))!;
    assert.match(page.body, /passing the request/);
    assert.equal(page.frontmatter.anchors?.['src/pipeline.ts:Pipeline.run'], 'sig:11111111 body:99999999 at:0123456789ab');
  });

  it('an empty plan re-stamps the changed citations; a moved citation needs an edit', async () => {
    const empty = JSON.stringify({ pages: [], corroborate: [], links: [] });
    const { wiki, model, deps, restamped } = await setUp([empty, empty, empty]);
    const pages = await wiki.loadPages();
    const report = await updatePages(deps, driftedPages(pages, [issue('pipeline', 'body-changed', 'src/pipeline.ts:Pipeline.run')], () => DIFF));
    assert.deepEqual([report.restamped, restamped], [['pipeline'], [{ slug: 'pipeline', citations: ['src/pipeline.ts:Pipeline.run'] }]]);
    const moved = await updatePages(deps, driftedPages(pages, [issue('pipeline', 'moved-symbol', 'src/pipeline.ts:Pipeline.run')], () => undefined));
    assert.deepEqual(moved.rejected.map((r) => r.slug), ['pipeline']);
    assert.match(messageText(model.requests[2].messages.at(-1)!), /must update the page: src\/pipeline\.ts:Pipeline\.run is moved symbol/);
  });

  it('a re-stamp that fails midway fails the run; runLogged still logs the run, then rethrows', async () => {
    const { wiki, deps } = await setUp([JSON.stringify({ pages: [], corroborate: [], links: [] })]);
    const pages = await wiki.loadPages();
    const failing: UpdateDeps = { ...deps, restamp: () => Promise.reject(new Error('EACCES: permission denied')) };
    const drifted = driftedPages(pages, [issue('pipeline', 'body-changed', 'src/pipeline.ts:Pipeline.run')], () => DIFF);
    const failed: unknown = await runLogged(wiki, () => updatePages(failing, drifted), (report) => updateLogEntry(report, deps.budget)).then(() => undefined, (error: unknown) => error);
    assert.ok(failed instanceof RunFailedError, String(failed));
    assert.deepEqual([(failed.report as UpdateReport).stopped, (failed.report as UpdateReport).notAttempted], [{ reason: 'error', message: 'EACCES: permission denied' }, ['pipeline']]);
    const { entries } = await wiki.readLog();
    assert.deepEqual(entries.map((entry) => [entry.op, entry.update, entry.stopped]), [['generate', true, 'error']]);
  });
});
