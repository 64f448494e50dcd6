import * as assert from 'node:assert/strict';
import { citationsOf, pagesCiting } from '../../../../src/core/drift/citations';
import { contentFingerprint, DriftEngine, type SymbolSearch } from '../../../../src/core/drift/driftEngine';
import { fileAnchor, type FileSymbols, type SourceSymbol, type SymbolParser } from '../../../../src/core/drift/symbols';
import { parsePage } from '../../../../src/core/pages/page';
import { MemoryFileSystem, pageText } from '../../../support/fakes';

const ROOT = '/ws';

/** Reads "name sig body" lines, so engine tests control fingerprints without TypeScript. */
class LineParser implements SymbolParser {
  readonly parsed: string[] = [];
  parse(fileName: string, text: string): FileSymbols {
    this.parsed.push(fileName);
    const symbols = new Map<string, SourceSymbol>();
    text.split('\n').forEach((line, index) => {
      const [name, sig, body] = line.trim().split(/\s+/);
      if (name) symbols.set(name, { name, kind: 'function', startLine: index, endLine: index, sig, body });
    });
    return { symbols, get: (name) => symbols.get(name), fingerprint: `f${text.length.toString(16).padStart(7, '0')}` };
  }
}

/** Counts reads per path, to see what the engine caches. */
class CountingFileSystem extends MemoryFileSystem {
  readonly reads = new Map<string, number>();
  override async readFile(file: string): Promise<Uint8Array> {
    this.reads.set(file, (this.reads.get(file) ?? 0) + 1);
    return super.readFile(file);
  }
}

class FakeSearch implements SymbolSearch {
  readonly words: string[] = [];
  constructor(private readonly files: string[] = []) {}
  async filesContaining(word: string): Promise<string[]> {
    this.words.push(word);
    return this.files;
  }
}

const page = (slug: string, body: string, anchors: Record<string, string> = {}) =>
  parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(pageText(slug, body, { anchors: JSON.stringify(anchors) })));

function setup(files: Record<string, string | Uint8Array>, search = new FakeSearch()) {
  const fs = new CountingFileSystem();
  for (const [file, content] of Object.entries(files)) fs.write(`${ROOT}/${file}`, content);
  const parser = new LineParser();
  return { fs, parser, search, engine: new DriftEngine(ROOT, fs, parser, search) };
}

const summary = (issues: Array<{ code: string; data: { citation: string } }>) => issues.map((i) => `${i.code} ${i.data.citation}`);

describe('DriftEngine', () => {
  it('reads and parses each cited file once, however many pages and citations name it', async () => {
    const { fs, parser, engine } = setup({ 'src/a.ts': 'Foo 11111111 22222222\nBar 33333333 44444444', 'src/b.ts': 'Baz 55555555 66666666' });
    const pages = [
      page('one', '`src/a.ts:Foo` `src/a.ts:Bar` `src/b.ts:Baz`', { 'src/a.ts:Foo': 'sig:11111111 body:22222222', 'src/a.ts:Bar': 'sig:33333333 body:44444444', 'src/b.ts:Baz': 'sig:55555555 body:66666666' }),
      page('two', '`src/a.ts:Foo` and again `src/a.ts:Foo`, `src/b.ts:Baz`', { 'src/a.ts:Foo': 'sig:11111111 body:22222222', 'src/b.ts:Baz': 'sig:55555555 body:66666666' }),
    ];
    const report = await engine.check(pages);
    assert.deepEqual(report, { pagesChecked: 2, citationsChecked: 6, issues: [] });
    assert.deepEqual(Object.fromEntries(fs.reads), { '/ws/src/a.ts': 1, '/ws/src/b.ts': 1 });
    assert.deepEqual(parser.parsed.sort(), ['src/a.ts', 'src/b.ts']);

    await engine.check(pages);
    assert.equal(parser.parsed.length, 2, 'a second check hits the cache');
    engine.invalidate('src/a.ts');
    await engine.check(pages);
    assert.deepEqual(parser.parsed.sort(), ['src/a.ts', 'src/a.ts', 'src/b.ts']);
  });

  it('picks the pages citing changed files, parsing each version of a page\'s citations once', () => {
    const one = page('one', '`src/a.ts:Foo` and `src/b.ts`');
    const two = page('two', '`src/c.ts:Bar`');
    assert.deepEqual(pagesCiting([one, two], new Set(['src/b.ts'])).map((p) => p.slug), ['one']);
    assert.deepEqual(pagesCiting([one, two], new Set(['src/x.ts'])), []);
    assert.equal(citationsOf(one), citationsOf(one), 'the same page object reuses its parse');
    const edited = page('one', '`src/c.ts:Bar`');
    assert.deepEqual(pagesCiting([edited, two], new Set(['src/c.ts'])).map((p) => p.slug), ['one', 'two'], 'a new version of a page is parsed again');
  });

  it('tells a signature change from a body change and reports the anchor to record', async () => {
    const { engine } = setup({ 'src/a.ts': 'Sig 99999999 22222222\nBody 11111111 99999999' });
    const anchors = { 'src/a.ts:Sig': 'sig:11111111 body:22222222', 'src/a.ts:Body': 'sig:11111111 body:22222222' };
    const { issues } = await engine.check([page('p', '`src/a.ts:Sig` `src/a.ts:Body`', anchors)]);
    assert.deepEqual(issues.map((i) => [i.code, i.severity, i.data.anchor]), [
      ['signature-changed', 'warning', 'sig:99999999 body:22222222'],
      ['body-changed', 'info', 'sig:11111111 body:99999999'],
    ]);
  });

  it('fingerprints a non-TS file by its bytes without parsing it, CRLF and LF alike', async () => {
    const lf = '{\n  "a": 1\n}\n';
    const { engine, parser } = setup({ 'config/app.json': lf.replace(/\n/g, '\r\n') });
    const anchor = fileAnchor(contentFingerprint(new TextEncoder().encode(lf)));
    assert.equal(await engine.currentAnchor({ path: 'config/app.json', outside: false }), anchor);
    assert.deepEqual((await engine.check([page('p', '`config/app.json`', { 'config/app.json': anchor })])).issues, []);
    assert.deepEqual(parser.parsed, []);

    const edited = setup({ 'config/app.json': lf.replace('1', '2') }).engine;
    assert.deepEqual(summary((await edited.check([page('p', '`config/app.json`', { 'config/app.json': anchor })])).issues), ['body-changed config/app.json']);
  });

  it('stops between pages once cancelled', async () => {
    const { engine } = setup({ 'src/a.ts': 'Foo 11111111 22222222' });
    const pages = [page('one', '`src/a.ts:Foo`'), page('two', '`src/a.ts:Foo`'), page('three', '`src/a.ts:Foo`')];
    assert.deepEqual(await engine.check(pages, { cancelled: true }), { pagesChecked: 0, citationsChecked: 0, issues: [] });
    let asked = 0;
    const afterOnePage = { get cancelled() { return ++asked > 1; } };
    const report = await engine.check(pages, afterOnePage);
    assert.equal(report.pagesChecked, 1);
    assert.deepEqual(summary(report.issues), ['unverified src/a.ts:Foo']);
  });

  it('checks a page once its own files are in, while another still waits, and reports pages in order', async () => {
    const { fs, search, engine } = setup({ 'src/slow.ts': 'Slow 11111111 22222222', 'src/fast.ts': 'Fast 33333333 44444444' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const read = fs.readFile.bind(fs);
    fs.readFile = async (file: string) => {
      if (file.endsWith('slow.ts')) await gate;
      return read(file);
    };
    // A symbol that is gone makes its check search the workspace: that search shows the page was checked.
    const checking = engine.check([page('one', '`src/slow.ts:Slow`'), page('two', '`src/fast.ts:Gone`')]);
    for (let tick = 0; tick < 20 && !search.words.length; tick++) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(search.words, ['Gone'], 'the second page was checked while the first one\'s file was still being read');
    release();
    const report = await checking;
    assert.deepEqual(summary(report.issues), ['unverified src/slow.ts:Slow', 'missing-symbol src/fast.ts:Gone'], 'issues in page order');
    assert.equal(report.pagesChecked, 2);
  });

  it('looks for a moved symbol in the other TS/JS files the search finds, first in path order', async () => {
    const search = new FakeSearch(['README.md', 'src/z.ts', 'src/a.ts', 'src/calls.ts', 'src/m.ts']);
    const { engine } = setup({
      'src/a.ts': 'Other 11111111 11111111',
      'src/m.ts': 'Outer.Inner.fn 11111111 11111111',
      'src/z.ts': 'Outer.Inner.fn 11111111 11111111',
      'src/calls.ts': 'Outer 11111111 11111111',
      'README.md': 'Outer.Inner.fn 11111111 11111111',
    }, search);
    const { issues } = await engine.check([page('p', '`src/a.ts:Outer.Inner.fn`')]);
    assert.deepEqual(issues.map((i) => [i.code, i.data.movedTo]), [['moved-symbol', 'src/m.ts']]);
    assert.deepEqual(search.words, ['Outer']);
  });

  it('never takes a default export elsewhere for a moved one', async () => {
    const search = new FakeSearch(['src/b.ts']);
    const { engine } = setup({ 'src/a.ts': '', 'src/b.ts': 'default 11111111 11111111' }, search);
    const { issues } = await engine.check([page('p', '`src/a.ts:default` `src/gone.ts:default`')]);
    assert.deepEqual(summary(issues), ['missing-symbol src/a.ts:default', 'missing-file src/gone.ts:default']);
    assert.deepEqual(search.words, []);
  });

  it('never reads a citation outside the workspace', async () => {
    const { fs, engine } = setup({ 'src/a.ts': 'Foo 11111111 22222222' });
    fs.write('/outside.ts', 'Foo 11111111 22222222');
    const { issues } = await engine.check([page('p', '`../outside.ts:Foo` and `/outside.ts`')]);
    assert.deepEqual(summary(issues), ['outside-workspace ../outside.ts:Foo', 'outside-workspace /outside.ts']);
    assert.deepEqual([...fs.reads.keys()], []);
    assert.equal(await engine.currentAnchor({ path: '../outside.ts', symbol: 'Foo', outside: true }), undefined);
  });

  it('gives the current anchor and the location of a cited symbol, or nothing when it does not resolve', async () => {
    const { engine } = setup({ 'src/a.ts': 'Foo 11111111 22222222\nBar 33333333 44444444' });
    assert.equal(await engine.currentAnchor({ path: 'src/a.ts', symbol: 'Bar', outside: false }), 'sig:33333333 body:44444444');
    assert.match((await engine.currentAnchor({ path: 'src/a.ts', outside: false }))!, /^file:f[0-9a-f]{7}$/);
    assert.equal(await engine.currentAnchor({ path: 'src/a.ts', symbol: 'Nope', outside: false }), undefined);
    assert.equal(await engine.currentAnchor({ path: 'src/none.ts', outside: false }), undefined);
    assert.deepEqual(await engine.locate({ path: 'src/a.ts', symbol: 'Bar' }), { path: 'src/a.ts', line: 1, symbol: 'Bar' });
    assert.deepEqual(await engine.locate({ path: 'src/a.ts' }), { path: 'src/a.ts', line: 0 });
    assert.equal(await engine.locate({ path: 'src/a.ts', symbol: 'Nope' }), undefined);
  });
});
