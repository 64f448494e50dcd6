import * as assert from 'node:assert/strict';
import { BudgetExhaustedError, budgetedModel, TokenBudget } from '../../../../src/core/generate/budget';
import { draftOutline, OutlineRejectedError, RunFailedError, writePages, type GenerateDeps, type GenerateReport } from '../../../../src/core/generate/generate';
import { generateLogEntry, runLogged } from '../../../../src/core/generate/log';
import { parseOutline, type OutlinePage } from '../../../../src/core/generate/outline';
import { pagesToWrite } from '../../../../src/core/generate/resume';
import { NO_STEERING, parseSteering } from '../../../../src/core/generate/steering';
import type { CitationResolver } from '../../../../src/core/ingest/changes';
import { LlmError, messageText, type CompletionRequest, type LanguageModel, type StreamCallbacks } from '../../../../src/core/llm/languageModel';
import { Wiki } from '../../../../src/core/wiki/wiki';
import { indexedWiki, pageText } from '../../../support/fakes';

const ROOT = '/ws';
const COMMIT = 'abcdef0123456789abcdef0123456789abcdef01';

const resolver: CitationResolver = {
  async currentAnchor(citation) {
    const known: Record<string, string> = { 'src/pipeline.ts:Pipeline.run': 'sig:11111111 body:22222222', 'src/errors.ts:HttpError': 'sig:33333333 body:44444444' };
    return citation.outside ? undefined : known[citation.symbol ? `${citation.path}:${citation.symbol}` : citation.path];
  },
};

class ScriptedModel implements LanguageModel {
  readonly requests: CompletionRequest[] = [];
  constructor(private readonly replies: string[], private readonly tokens = { input: 1000, output: 200 }) {}
  async complete(request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal) {
    this.requests.push(request);
    if (signal?.aborted) throw new LlmError('cancelled', 'Stopped.');
    const text = this.replies.shift() ?? '{}';
    callbacks.onText(text); // streamed, as a provider does: the tool loop reads the answer from the stream
    return { text, model: 'claude-test-1', inputTokens: this.tokens.input, outputTokens: this.tokens.output, stopReason: 'end_turn' };
  }
}

async function emptyWiki(pages: Record<string, string> = {}) {
  return (await indexedWiki(pages, ROOT)).wiki;
}

function outlinePages(count: number): OutlinePage[] {
  return Array.from({ length: count }, (_, i) => ({ slug: `page-${i + 1}`, title: `Page ${i + 1}`, topic: 'architecture' as const, purpose: `What part ${i + 1} does.`, files: ['src/pipeline.ts'] }));
}

function pagePlan(slug: string, citation = 'src/pipeline.ts:Pipeline.run'): string {
  return JSON.stringify({
    pages: [{ action: 'create', slug, title: `Title of ${slug}`, topic: 'architecture', summary: `About ${slug}.`, tags: [], body: `# ${slug}\n\n\`${citation}\` runs the middleware.`, citations: [citation] }],
    corroborate: [],
    links: [],
  });
}

function deps(wiki: Wiki, model: LanguageModel, budget = new TokenBudget(1_000_000)): GenerateDeps {
  return { wiki, model, budget, resolver, tools: [], settings: { model: 'claude-test', maxTokens: 2000, maxToolRounds: 4, toolTokenBudget: 50_000 }, today: '2026-11-28', commit: COMMIT };
}

describe('generate: the steering file', () => {
  it('reads notes and required pages', () => {
    const steering = parseSteering(JSON.stringify({ notes: 'For new hires.', pages: [{ title: 'Error handling', purpose: 'How errors become responses.', files: ['src/errors.ts'] }] }));
    assert.deepEqual(steering, { notes: 'For new hires.', pages: [{ title: 'Error handling', purpose: 'How errors become responses.', files: ['src/errors.ts'] }] });
    assert.deepEqual(parseSteering('{}'), NO_STEERING);
  });

  it('names the bad field', () => {
    const cases: [string, RegExp][] = [
      ['{"notes": ', /\$ is not valid JSON/],
      ['{"pages": [{"title": "", "purpose": "x"}]}', /pages\[0\]\.title must be one line/],
      ['{"pages": [{"title": "A", "purpose": "x", "files": "src"}]}', /pages\[0\]\.files must be a list/],
      ['{"pages": [{"title": "A", "purpose": "x", "slug": "a"}]}', /pages\[0\]\.slug is not a field of a page/],
      ['{"note": "x"}', /note is not a field of generate\.json/],
      ['{"pages": [{"title": "A", "purpose": "x"}, {"title": "a", "purpose": "y"}]}', /pages\[1\]\.title repeats the title/],
    ];
    for (const [text, expected] of cases) assert.throws(() => parseSteering(text), (error: Error) => expected.test(error.message) && /\.wiki\/generate\.json/.test(error.message), text);
  });
});

describe('generate: the outline contract', () => {
  const reply = (pages: unknown[]) => `\`\`\`json\n${JSON.stringify({ pages })}\n\`\`\``;

  it('accepts 8 to 30 pages with unique slugs and titles', () => {
    for (const count of [8, 30]) {
      const parsed = parseOutline(reply(outlinePages(count)), []);
      assert.ok('outline' in parsed, JSON.stringify(parsed));
      assert.equal(parsed.outline.length, count);
    }
  });

  it('refuses too few or too many pages, a repeated slug, and a missing required page', () => {
    const cases: [unknown[], RegExp, { title: string; purpose: string; files: string[] }[]][] = [
      [outlinePages(7), /has 7 pages; an outline has 8 to 30/, []],
      [outlinePages(31), /has 31 pages/, []],
      [[...outlinePages(8), { ...outlinePages(1)[0], title: 'Other' }], /pages\[8\]\.slug: "page-1" appears twice/, []],
      [outlinePages(8).map((page, i) => (i ? page : { ...page, topic: 'conversations' })), /pages\[0\]\.topic/, []],
      [outlinePages(8), /misses the page "Error handling" that \.wiki\/generate\.json requires/, [{ title: 'Error handling', purpose: 'x', files: [] }]],
    ];
    for (const [pages, expected, required] of cases) {
      const parsed = parseOutline(reply(pages), required);
      assert.ok('problems' in parsed);
      assert.match(parsed.problems.map((p) => `${p.path}: ${p.message}`).join('\n'), expected);
    }
    const withRequired = [...outlinePages(7), { slug: 'errors', title: 'error handling', topic: 'patterns', purpose: 'x', files: [] }];
    assert.ok('outline' in parseOutline(reply(withRequired), [{ title: 'Error handling', purpose: 'x', files: [] }]), 'a required title matches whatever its case');
  });

  it('sends a broken outline back once with its problems, then rejects it', async () => {
    const wiki = await emptyWiki();
    const input = { schema: '', steering: NO_STEERING, map: 'src/pipeline.ts', files: [], pages: [] };
    const repaired = new ScriptedModel([JSON.stringify({ pages: outlinePages(3) }), JSON.stringify({ pages: outlinePages(9) })]);
    const { outline } = await draftOutline(deps(wiki, repaired), input);
    assert.equal(outline.length, 9);
    assert.match(messageText(repaired.requests[1].messages.at(-1)!), /has 3 pages; an outline has 8 to 30/);
    const broken = new ScriptedModel(['no json', 'still none']);
    await assert.rejects(draftOutline(deps(wiki, broken), input), OutlineRejectedError);
    assert.equal(broken.requests.length, 2);
  });
});

describe('generate: writing the pages', () => {
  it('writes each page stamped with the commit and recorded as generated, logging nothing itself', async () => {
    const wiki = await emptyWiki();
    const outline = outlinePages(2);
    const model = new ScriptedModel([pagePlan('page-1'), pagePlan('page-2', 'src/errors.ts:HttpError')]);
    const report = await writePages(deps(wiki, model), outline, outline, 'For new hires.');
    assert.deepEqual(report.rejected, []);
    assert.deepEqual(report.written, ['page-1', 'page-2']);
    const page = (await wiki.readPage('page-1'))!;
    assert.deepEqual(page.frontmatter.sources, ['generate:page-1']);
    assert.deepEqual({ ...page.frontmatter.anchors }, { 'src/pipeline.ts:Pipeline.run': `sig:11111111 body:22222222 at:${COMMIT.slice(0, 12)}` });
    assert.match(messageText(model.requests[0].messages[0]), /For new hires\./);
    assert.match(model.requests[0].system.map((block) => block.text).join('\n'), /Slugs are lowercase/, 'SCHEMA.md is in the prompt');
    assert.deepEqual((await wiki.readLog()).entries, []);
  });

  it('sends an invented citation back once, then rejects that page and goes on with the next', async () => {
    const wiki = await emptyWiki();
    const outline = outlinePages(2);
    const invented = pagePlan('page-1', 'src/pipeline.ts:Pipeline.teleport');
    const model = new ScriptedModel([invented, invented, pagePlan('page-2')]);
    const report = await writePages(deps(wiki, model), outline, outline, '');
    assert.equal(model.requests.length, 3);
    assert.match(messageText(model.requests[1].messages.at(-1)!), /src\/pipeline\.ts:Pipeline\.teleport does not resolve/);
    assert.deepEqual(report.rejected.map((page) => page.slug), ['page-1']);
    assert.match(report.rejected[0].problems[0].message, /invented citation/);
    assert.deepEqual(report.written, ['page-2']);
    assert.equal(await wiki.readPage('page-1'), undefined);
  });

  it('a page the wiki already holds (a duplicate) counts as not written, not as written', async () => {
    const wiki = await emptyWiki({ 'pipeline-notes': pageText('Title of page-1', '# Pipeline\n') });
    const outline = outlinePages(1);
    const model = new ScriptedModel([pagePlan('page-1'), pagePlan('page-1')]);
    const report = await writePages(deps(wiki, model), outline, outline, '');
    assert.deepEqual(report.written, []);
    assert.match(report.rejected[0].problems[0].message, /does not write "page-1": .*already in the wiki as \[\[pipeline-notes\]\]/);
  });

  it('a repaired plan is written', async () => {
    const wiki = await emptyWiki();
    const outline = outlinePages(1);
    const model = new ScriptedModel([pagePlan('wrong-slug'), pagePlan('page-1')]);
    const report = await writePages(deps(wiki, model), outline, outline, '');
    assert.match(messageText(model.requests[1].messages.at(-1)!), /exactly one page, with the slug "page-1"/);
    assert.deepEqual(report.written, ['page-1']);
  });

  it('stops before a request that could overrun the budget, keeping the pages written', async () => {
    const outline = outlinePages(3);
    const probe = new ScriptedModel([pagePlan('page-1')]);
    await writePages(deps(await emptyWiki(), probe), outline, outline.slice(0, 1), '');
    const firstRequest = TokenBudget.worstCase(probe.requests[0]);
    // Room for the first page's request, not for the second's (as large) once the first's 1200 tokens are billed.
    const budget = new TokenBudget(firstRequest + 1000);
    const wiki = await emptyWiki();
    const model = new ScriptedModel([pagePlan('page-1'), pagePlan('page-2'), pagePlan('page-3')], { input: 1000, output: 200 });
    const report = await writePages(deps(wiki, model, budget), outline, outline, '');
    assert.deepEqual(report.written, ['page-1']);
    assert.equal(report.stopped?.reason, 'budget');
    assert.deepEqual(report.notAttempted, ['page-2', 'page-3']);
    assert.equal(model.requests.length, 1, 'the request that could overrun was never sent');
    assert.ok(budget.used <= budget.limit);
    assert.ok((await wiki.readPage('page-1'))?.valid);
  });

  it('the budgeted model refuses a request larger than what is left', async () => {
    const model = new ScriptedModel(['x']);
    const budget = new TokenBudget(100);
    await assert.rejects(budgetedModel(model, budget).complete({ model: 'm', maxTokens: 200, system: [], messages: [{ role: 'user', content: 'hi' }] }, { onText: () => undefined }), BudgetExhaustedError);
    assert.equal(model.requests.length, 0);
  });

  it('a model that fails stops the run with its message, keeping the pages written', async () => {
    const wiki = await emptyWiki();
    const outline = outlinePages(2);
    const scripted = new ScriptedModel([pagePlan('page-1')]);
    let calls = 0;
    const failing: LanguageModel = { complete: (request, callbacks, signal) => (++calls > 1 ? Promise.reject(new LlmError('overloaded', 'The API is overloaded.')) : scripted.complete(request, callbacks, signal)) };
    const report = await writePages(deps(wiki, failing), outline, outline, '');
    assert.deepEqual(report.written, ['page-1']);
    assert.deepEqual(report.stopped, { reason: 'failed', message: 'The API is overloaded.' });
    assert.deepEqual(report.notAttempted, ['page-2']);
  });

  it('a write that fails midway fails the run, and runLogged still logs the page written before it, then rethrows', async () => {
    const wiki = await emptyWiki();
    const outline = outlinePages(3);
    const model = new ScriptedModel([pagePlan('page-1'), pagePlan('page-2', 'src/errors.ts:HttpError')]);
    const exclusive = wiki.exclusive.bind(wiki);
    let writes = 0;
    wiki.exclusive = ((work) => (++writes > 1 ? Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })) : exclusive(work))) as typeof wiki.exclusive;
    const budget = new TokenBudget(1_000_000);
    const failed: unknown = await runLogged(wiki, () => writePages(deps(wiki, model, budget), outline, outline, ''), (report) => generateLogEntry(report, budget)).then(() => undefined, (error: unknown) => error);
    assert.ok(failed instanceof RunFailedError, String(failed));
    assert.equal((failed.failure as NodeJS.ErrnoException).code, 'ENOSPC');
    const report = failed.report as GenerateReport;
    assert.deepEqual([report.written, report.stopped, report.notAttempted], [['page-1'], { reason: 'error', message: 'ENOSPC: no space left on device' }, ['page-2', 'page-3']]);
    const { entries } = await wiki.readLog();
    assert.deepEqual(entries.map((entry) => [entry.op, entry.written, entry.stopped]), [['generate', ['page-1'], 'error']], 'one line, with what was accepted');
  });

  it('Ctrl+C stops the run cleanly, keeping the pages written', async () => {
    const wiki = await emptyWiki();
    const outline = outlinePages(3);
    const controller = new AbortController();
    const model = new ScriptedModel([pagePlan('page-1'), pagePlan('page-2')]);
    const report = await writePages(deps(wiki, model), outline, outline, '', controller.signal, { onPage: ({ index }) => index === 1 && controller.abort() });
    assert.deepEqual(report.written, ['page-1']);
    assert.equal(report.stopped?.reason, 'cancelled');
    assert.deepEqual(report.notAttempted, ['page-2', 'page-3']);
  });
});

describe('generate: resuming', () => {
  it('skips the outline pages an earlier run generated, not hand-written ones of the same slug', async () => {
    const wiki = await emptyWiki({
      'page-1': pageText('Page 1', '# Page 1\n', { sources: '["generate:page-1"]' }),
      'page-2': pageText('Page 2', '# Page 2\n', { sources: '["file:docs/a.md"]' }),
    });
    const { write, done } = pagesToWrite(outlinePages(3), await wiki.loadPages());
    assert.deepEqual(done.map((page) => page.slug), ['page-1']);
    assert.deepEqual(write.map((page) => page.slug), ['page-2', 'page-3']);
  });
});
