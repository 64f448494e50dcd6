import * as assert from 'node:assert/strict';
import type { DriftReport } from '../../../../src/core/drift/driftEngine';
import { lintWithLibrarian, LintReplyError, type CitedCode } from '../../../../src/core/lint/librarianPass';
import { applyLintFixes, planLintFixes, unlink } from '../../../../src/core/lint/lintFix';
import type { CompletionRequest, LanguageModel } from '../../../../src/core/llm/languageModel';
import { parseLog } from '../../../../src/core/wiki/log';
import { Wiki } from '../../../../src/core/wiki/wiki';
import { fixedClock, MemoryFileSystem, pageText } from '../../../support/fakes';
import { messageText } from '../../../../src/core/llm/languageModel';

const ROOT = '/ws';

async function wikiWith(pages: Record<string, string>, log = '') {
  const fs = new MemoryFileSystem();
  for (const [slug, text] of Object.entries(pages)) fs.write(`${ROOT}/.wiki/pages/${slug}.md`, text);
  fs.write(`${ROOT}/.wiki/log.jsonl`, log);
  const wiki = new Wiki(ROOT, fs, fixedClock());
  return { fs, wiki, pages: await wiki.loadPages() };
}

class ScriptedModel implements LanguageModel {
  readonly requests: CompletionRequest[] = [];
  constructor(private readonly reply: (request: CompletionRequest) => string) {}
  async complete(request: CompletionRequest) {
    this.requests.push(request);
    return { text: this.reply(request), model: 'claude-test-1', inputTokens: 3000, outputTokens: 200, stopReason: 'end_turn' };
  }
}

const code: CitedCode = {
  async codeOf(citation) {
    return citation.symbol === 'Cache.ttl' ? 'get ttl() { return 60; }' : undefined;
  },
};

const PAGES = {
  caching: pageText('Caching', '# Caching\n\nEntries live for `src/cache.ts:Cache.ttl` = 300 seconds.\n', { updated: '2026-10-01' }),
  'cache-tuning': pageText('Cache tuning', '# Tuning\n\nEntries live for 60 seconds.\n', { updated: '2026-11-01' }),
  routing: pageText('Routing', '# Routing\n\nRoutes match paths.\n', { updated: '2026-11-10' }),
};

const SETTINGS = { model: 'claude-test', maxPages: 20, maxTokens: 100_000, maxOutputTokens: 2000, minAgeDays: 7, today: '2026-11-22' };

describe('librarian lint', () => {
  it('sends pages with the current code they cite and turns findings into lint: diagnostics at the quote', async () => {
    const { pages } = await wikiWith(PAGES);
    const model = new ScriptedModel(() => JSON.stringify({
      findings: [
        { kind: 'unsupported-claim', page: 'caching', quote: '300 seconds', message: 'Cache.ttl returns 60 now.', severity: 'warning', related: ['cache-tuning'],
          fix: { pages: [{ action: 'update', slug: 'caching', title: 'Caching', topic: 'architecture', summary: 'About Caching', tags: [], body: '# Caching\n\nEntries live 60 seconds.', citations: [] }] } },
        { kind: 'missing-link', page: 'cache-tuning', quote: 'not in the page', message: 'Should link [[caching]].', severity: 'info' },
        { kind: 'rumour', page: 'routing', message: 'x' },
        { kind: 'contradiction', page: '../../etc/passwd', message: 'x' },
      ],
    }));
    const report = await lintWithLibrarian(pages, { model, code, settings: SETTINGS });
    const sent = messageText(model.requests[0].messages[0]);
    assert.match(sent, /<code citation="src\/cache.ts:Cache.ttl">\nget ttl\(\) \{ return 60; \}\n<\/code>/);
    assert.equal(model.requests[0].system.at(-1)?.cache, true);
    assert.deepEqual(report.findings.map((f) => [f.code, f.severity, f.page]), [
      ['lint:unsupported-claim', 'warning', '.wiki/pages/caching.md'],
      ['lint:missing-link', 'info', '.wiki/pages/cache-tuning.md'],
    ]);
    const caching = pages.find((p) => p.slug === 'caching')!;
    const line = caching.bodyStartLine + 2;
    assert.deepEqual(report.findings[0].range.start, { line, character: caching.body.split('\n')[2].indexOf('300 seconds') });
    assert.match(report.findings[0].message, /\(see \[\[cache-tuning\]\]\)/);
    assert.equal(report.findings[0].fix?.pages[0].slug, 'caching');
    assert.equal(report.findings[1].range.start.line, pages.find((p) => p.slug === 'cache-tuning')!.fieldLines.title, 'an unfound quote falls back to the title line');
    assert.equal(report.dropped.length, 2);
    assert.deepEqual(report.usage, { inputTokens: 3000, outputTokens: 200, requests: 1 });
  });

  it('checks at most maxPages pages, oldest first, and stops at the token budget', async () => {
    const { pages } = await wikiWith(PAGES);
    const capped = await lintWithLibrarian(pages, { model: new ScriptedModel(() => '{"findings": []}'), code, settings: { ...SETTINGS, maxPages: 2 } });
    assert.deepEqual(capped.pagesChecked, ['caching', 'cache-tuning']);
    assert.deepEqual(capped.pagesSkipped, ['routing']);

    const model = new ScriptedModel(() => '{"findings": []}');
    const broke = await lintWithLibrarian(pages, { model, code, settings: { ...SETTINGS, maxTokens: 200 } });
    assert.equal(model.requests.length, 0, 'nothing is sent past the budget');
    assert.deepEqual(broke.pagesChecked, []);
    assert.equal(broke.pagesSkipped.length, 3);
  });

  it('leaves out pages updated within minAgeDays, and says which', async () => {
    const { pages } = await wikiWith(PAGES);
    const model = new ScriptedModel(() => '{"findings": []}');
    const report = await lintWithLibrarian(pages, { model, code, settings: { ...SETTINGS, minAgeDays: 14 } });
    assert.deepEqual(report.pagesChecked, ['caching', 'cache-tuning']);
    assert.deepEqual(report.pagesTooNew, ['routing']);
    assert.doesNotMatch(messageText(model.requests[0].messages[0]), /Routes match paths/);
    const none = await lintWithLibrarian(pages, { model, code, settings: { ...SETTINGS, minAgeDays: 400 } });
    assert.deepEqual([none.pagesChecked, none.pagesTooNew.length], [[], 3]);
  });

  it('rejects a reply that is not the contract, keeping the raw reply', async () => {
    const { pages } = await wikiWith(PAGES);
    await assert.rejects(lintWithLibrarian(pages, { model: new ScriptedModel(() => 'Looks fine to me!'), code, settings: SETTINGS }), (error: unknown) => {
      assert.ok(error instanceof LintReplyError);
      assert.equal(error.reply, 'Looks fine to me!');
      assert.doesNotMatch(error.message, /output|stderr/, 'where the raw reply went is for each front end to say');
      return true;
    });
  });

  it('tells the model cited code that could not be read is unreadable, not gone; only missing code is "not found"', async () => {
    const { pages } = await wikiWith({
      caching: pageText('Caching', '# Caching\n\n`src/cache.ts:Cache.ttl` is 60, `src/locked.ts:Vault` is sealed, `src/gone.ts:Gone` was here.\n', { updated: '2026-10-01' }),
    });
    const unreadable: CitedCode = {
      async codeOf(citation) {
        if (citation.path === 'src/locked.ts') throw Object.assign(new Error("EACCES: permission denied, open '/home/someone/ws/src/locked.ts'"), { code: 'EACCES' });
        return code.codeOf(citation);
      },
    };
    const model = new ScriptedModel(() => '{"findings": []}');
    await lintWithLibrarian(pages, { model, code: unreadable, settings: SETTINGS });
    const sent = messageText(model.requests[0].messages[0]);
    assert.match(sent, /<code citation="src\/locked.ts:Vault">\n\(could not be read: EACCES; this does not mean the code was removed, so do not judge claims about it\)\n<\/code>/);
    assert.match(sent, /<code citation="src\/gone.ts:Gone">\n\(not found in the code any more\)\n<\/code>/);
    assert.match(sent, /<code citation="src\/cache.ts:Cache.ttl">\nget ttl\(\)/);
    assert.doesNotMatch(sent, /\/home\/someone/, 'the error\'s absolute path is not sent');
  });

  it('keeps a finding whose fix breaks the plan contract, without the fix', async () => {
    const { pages } = await wikiWith(PAGES);
    const model = new ScriptedModel(() => JSON.stringify({ findings: [{ kind: 'contradiction', page: 'caching', quote: 'Entries', message: 'Two TTLs.', fix: { pages: [{ slug: '../x' }] } }] }));
    const report = await lintWithLibrarian(pages, { model, code, settings: SETTINGS });
    assert.equal(report.findings.length, 1);
    assert.equal(report.findings[0].fix, undefined);
    assert.match(report.dropped[0], /fix breaks the plan contract/);
  });
});

describe('safe lint fixes', () => {
  const missing = (page: string, citation: string, code = 'missing-symbol'): DriftReport['issues'][number] =>
    ({ code, severity: 'error', message: '', page, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, data: { citation, path: citation.split(':')[0] } }) as DriftReport['issues'][number];

  it('unlinks deleted pages (known from the log), marks pages with only missing citations stale, leaves typos alone', async () => {
    const log = '{"ts":"2026-11-01T00:00:00Z","op":"new-page","pages":["old-design"]}\n';
    const { fs, wiki, pages } = await wikiWith({
      a: pageText('A', 'See [[old-design|the old design]] and [[old-design]], `[[old-design]]` in code, and [[typo-page]].\n\nUses `src/gone.ts:Gone`.\n'),
      b: pageText('B', 'Uses `src/gone.ts:Gone` and `src/here.ts:Here`.\n'),
    }, log);
    const drift = { pagesChecked: 2, citationsChecked: 3, issues: [missing('.wiki/pages/a.md', 'src/gone.ts:Gone'), missing('.wiki/pages/b.md', 'src/gone.ts:Gone')] };
    const plan = await planLintFixes(wiki, pages, drift);
    assert.deepEqual(plan, { unlinked: [{ slug: 'a', targets: ['old-design'] }], stale: [{ slug: 'a', citations: 1 }] });
    const result = await applyLintFixes(wiki, plan, '2026-11-22');
    assert.deepEqual(result.pages, ['a']);
    const a = fs.text(`${ROOT}/.wiki/pages/a.md`)!;
    assert.match(a, /See the old design and old design, `\[\[old-design\]\]` in code, and \[\[typo-page\]\]\./);
    assert.match(a, /^status: stale$/m);
    assert.match(a, /^stale_reason: .*All 1 code citation/m);
    assert.match(fs.text(`${ROOT}/.wiki/pages/b.md`)!, /^status: active$/m);
    assert.ok(fs.text(`${ROOT}/.wiki/index.json`));
    assert.equal(parseLog(fs.text(`${ROOT}/.wiki/log.jsonl`)!).entries.at(-1)?.op, 'lint-fix');
  });

  it('unlink leaves other links and code alone', () => {
    assert.equal(unlink('[[x]] [[y]] `[[x]]`\n```\n[[x]]\n```\n', new Set(['x'])), 'x [[y]] `[[x]]`\n```\n[[x]]\n```\n');
  });
});
