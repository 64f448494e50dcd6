import * as assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorkspaceFiles } from '../../../../src/adapters/files/workspaceFiles';
import { WikiError } from '../../../../src/core/errors';
import type { FileSystem } from '../../../../src/core/ports';
import { isWikiContent, Wiki, type TemplateFile } from '../../../../src/core/wiki/wiki';
import { fixedClock, MemoryFileSystem, pageText } from '../../../support/fakes';

const ROOT = '/ws';
const TEMPLATE: TemplateFile[] = [
  { path: 'SCHEMA.md', text: '# Schema\n' },
  { path: 'index.json', text: '{"version":1,"pages":[]}\n' },
  { path: 'index.md', text: '# Wiki index\n' },
  { path: 'log.jsonl', text: '' },
  { path: '.gitattributes', text: 'log.jsonl merge=union\n' },
  { path: 'pages/welcome.md', text: pageText('Welcome', 'See [[welcome]].\n', { created: '{{today}}', updated: '{{today}}' }) },
];

function setup() {
  const fs = new MemoryFileSystem();
  return { fs, wiki: new Wiki(ROOT, fs, fixedClock()) };
}

describe('Wiki', () => {
  it('init copies the template, stamps today, indexes the starter pages and logs it', async () => {
    const { fs, wiki } = setup();
    const result = await wiki.init(TEMPLATE);
    assert.equal(result.created, true);
    assert.deepEqual(result.files.sort(), ['.wiki/.gitattributes', '.wiki/SCHEMA.md', '.wiki/index.json', '.wiki/index.md', '.wiki/log.jsonl', '.wiki/pages/welcome.md']);
    assert.match(fs.text('/ws/.wiki/pages/welcome.md')!, /created: 2026-11-22/);
    assert.deepEqual(JSON.parse(fs.text('/ws/.wiki/index.json')!).pages.map((p: { slug: string }) => p.slug), ['welcome']);
    assert.deepEqual((await wiki.readLog()).entries.map((e) => e.op), ['init']);
  });

  it('init never overwrites an existing wiki', async () => {
    const { fs, wiki } = setup();
    fs.write('/ws/.wiki/index.json', 'MINE');
    fs.write('/ws/.wiki/SCHEMA.md', 'MY SCHEMA');
    const result = await wiki.init(TEMPLATE);
    assert.deepEqual(result, { created: false, files: [] });
    assert.equal(fs.text('/ws/.wiki/index.json'), 'MINE');
    assert.equal(fs.text('/ws/.wiki/SCHEMA.md'), 'MY SCHEMA');
    assert.equal(fs.text('/ws/.wiki/pages/welcome.md'), undefined);
  });

  it('creates pages under unique slugs inside .wiki/pages', async () => {
    const { fs, wiki } = setup();
    await wiki.init(TEMPLATE);
    const first = await wiki.createPage({ title: 'Welcome', topic: 'patterns' });
    assert.equal(first.slug, 'welcome-2');
    assert.equal(first.path, '/ws/.wiki/pages/welcome-2.md');
    const hostile = await wiki.createPage({ title: '../../../etc/passwd' });
    assert.equal(hostile.path, '/ws/.wiki/pages/etc-passwd.md');
    const page = await wiki.readPage('welcome-2');
    assert.equal(page?.valid, true);
    assert.equal(page?.frontmatter.topic, 'patterns');
    assert.match(fs.text('/ws/.wiki/index.md')!, /welcome-2/);
    assert.deepEqual((await wiki.readLog()).entries.map((e) => e.op), ['init', 'new-page', 'new-page']);
  });

  it('refuses to write a page under an unsafe slug', async () => {
    const { wiki } = setup();
    await assert.rejects(() => wiki.writePage('../x', {} as never, ''), (e: unknown) => e instanceof WikiError && e.code === 'invalid-slug');
  });

  it('regenerates an index left with merge conflict markers, and only rewrites when it differs', async () => {
    const { fs, wiki } = setup();
    await wiki.init(TEMPLATE);
    const good = fs.text('/ws/.wiki/index.json');
    fs.write('/ws/.wiki/index.json', `<<<<<<< HEAD\n${good}=======\n{}\n>>>>>>> other\n`);
    const loaded = await wiki.loadIndex();
    assert.equal(loaded.repaired, 'conflict');
    assert.equal(fs.text('/ws/.wiki/index.json'), good);
    assert.equal((await wiki.loadIndex()).repaired, undefined);
    assert.equal((await wiki.rebuildIndex()).changed, false);
  });

  it('regenerates a missing or unparsable index', async () => {
    const { fs, wiki } = setup();
    await wiki.init(TEMPLATE);
    fs.files.delete('/ws/.wiki/index.json');
    assert.equal((await wiki.loadIndex()).repaired, 'missing');
    fs.write('/ws/.wiki/index.json', '{"version":1,"pa');
    assert.equal((await wiki.loadIndex()).repaired, 'unparsable');
  });

  it('appends to a log with a torn last line without rewriting it', async () => {
    const { fs, wiki } = setup();
    await wiki.init(TEMPLATE);
    const before = `${fs.text('/ws/.wiki/log.jsonl')}{"ts":"2026-11-22T09`;
    fs.write('/ws/.wiki/log.jsonl', before);
    await wiki.appendLog({ op: 'lint', pages: [] });
    const after = fs.text('/ws/.wiki/log.jsonl')!;
    assert.ok(after.startsWith(before), 'existing bytes untouched');
    const { entries, skipped } = await wiki.readLog();
    assert.deepEqual(entries.map((e) => e.op), ['init', 'lint']);
    assert.equal(skipped, 1);
  });

  it('keeps reading when pages are binary, huge or not pages at all', async () => {
    const { fs, wiki } = setup();
    await wiki.init(TEMPLATE);
    fs.write('/ws/.wiki/pages/image.md', new Uint8Array([0x89, 0, 0, 0]));
    fs.write('/ws/.wiki/pages/notes.txt', 'not markdown');
    fs.write('/ws/.wiki/pages/.hidden.md', 'x');
    const { pages, issues } = await wiki.lint();
    assert.deepEqual(pages.map((p) => p.slug), ['image', 'welcome']);
    assert.deepEqual(issues.map((i) => i.code), ['page-binary']);
  });

  it('surfaces a read-only file system as an error and leaves files as they were', async () => {
    const { fs, wiki } = setup();
    await wiki.init(TEMPLATE);
    const snapshot = new Map(fs.files);
    fs.failWrites = new WikiError('read-only', 'Cannot write: read-only.');
    await assert.rejects(() => wiki.createPage({ title: 'New' }), /read-only/);
    assert.deepEqual(fs.files, snapshot);
  });
});

/** A wiki of two pages, `a` and `b`, in memory. */
function twoPages() {
  const fs = new MemoryFileSystem();
  fs.write('/ws/.wiki/pages/a.md', pageText('A', 'One.\n'));
  fs.write('/ws/.wiki/pages/b.md', pageText('B', 'Two.\n'));
  return { fs, wiki: new Wiki('/ws', fs, fixedClock()) };
}

/** The names of the files `files` reads with their versions from now on. */
function readsOf(files: Pick<FileSystem, 'readVersioned'>): string[] {
  const reads: string[] = [];
  const readVersioned = files.readVersioned.bind(files);
  files.readVersioned = (file, options) => (reads.push(path.basename(file)), readVersioned(file, options));
  return reads;
}

describe('loading pages again', () => {
  it('reuses the parse of unchanged pages and re-parses changed ones', async () => {
    const { fs, wiki } = twoPages();
    const [a1, b1] = await wiki.loadPages();
    fs.write('/ws/.wiki/pages/b.md', pageText('B', 'Two, edited.\n'));
    const [a2, b2] = await wiki.loadPages();
    assert.equal(a2, a1, 'unchanged: the same parse');
    assert.notEqual(b2, b1);
    assert.equal(b2.body, 'Two, edited.\n');
    fs.files.delete('/ws/.wiki/pages/a.md');
    assert.deepEqual((await wiki.loadPages()).map((page) => page.slug), ['b']);
  });
});

describe('loading pages again by their versions', () => {
  it('reads no unchanged page again, and reads a changed one', async () => {
    const { fs, wiki } = twoPages();
    const [a1] = await wiki.loadPages();
    const reads = readsOf(fs);
    fs.write('/ws/.wiki/pages/b.md', pageText('B', 'Two, edited.\n'));
    const [a2, b2] = await wiki.loadPages({ slugs: ['a', 'b'] });
    assert.deepEqual(reads, ['b.md'], 'only the page written since');
    assert.equal(a2, a1);
    assert.equal(b2.body, 'Two, edited.\n');
  });

  it('reads a page whose file cannot vouch for its version every time (written in the last seconds)', async () => {
    const root = nodeFs.mkdtempSync(path.join(os.tmpdir(), 'wiki-versions-'));
    try {
      const pages = path.join(root, '.wiki', 'pages');
      nodeFs.mkdirSync(pages, { recursive: true });
      nodeFs.writeFileSync(path.join(pages, 'old.md'), pageText('Old', 'Settled.\n'));
      nodeFs.utimesSync(path.join(pages, 'old.md'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      nodeFs.writeFileSync(path.join(pages, 'new.md'), pageText('New', 'Just written.\n'));
      const files = new WorkspaceFiles(root);
      const wiki = new Wiki(root, files, fixedClock());
      await wiki.loadPages();
      const reads = readsOf(files);
      nodeFs.writeFileSync(path.join(pages, 'new.md'), pageText('New', 'Written again.\n'));
      const again = await wiki.loadPages();
      assert.deepEqual(reads, ['new.md']);
      assert.equal(again.find((page) => page.slug === 'new')!.body, 'Written again.\n');
    } finally {
      nodeFs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('loading only the pages that mention a path', () => {
  it('parses the pages whose text names one of the paths, and the page that is one of them', async () => {
    const fs = new MemoryFileSystem();
    fs.write('/ws/.wiki/pages/a.md', pageText('A', 'See `src/a.ts:Foo`.\n'));
    fs.write('/ws/.wiki/pages/b.md', pageText('B', 'Nothing cited.\n'));
    fs.write('/ws/.wiki/pages/c.md', pageText('C', 'See `src/c.ts`.\n'));
    const wiki = new Wiki('/ws', fs, fixedClock());
    const slugs = async (mentioning: string[]) => (await wiki.loadPages({ mentioning })).map((page) => page.slug);
    assert.deepEqual(await slugs(['src/a.ts']), ['a']);
    assert.deepEqual(await slugs(['src/a.ts', '.wiki/pages/b.md']), ['a', 'b']);
    assert.deepEqual(await slugs([]), []);
    assert.deepEqual((await wiki.loadPages()).map((page) => page.slug), ['a', 'b', 'c'], 'a filtered load forgets nothing');
  });
});

describe('loading pages from a real folder', () => {
  it('skips a folder named like a page and reads the rest', async () => {
    const root = nodeFs.mkdtempSync(path.join(os.tmpdir(), 'wiki-load-'));
    try {
      nodeFs.mkdirSync(path.join(root, '.wiki', 'pages', 'folder.md'), { recursive: true });
      nodeFs.writeFileSync(path.join(root, '.wiki', 'pages', 'real.md'), pageText('Real', 'Body.\n'));
      const pages = await new Wiki(root, new WorkspaceFiles(root), fixedClock()).loadPages();
      assert.deepEqual(pages.map((page) => page.slug), ['real']);
    } finally {
      nodeFs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('which changes inside .wiki/ are wiki content', () => {
  it('pages, the index, the log and the schema are; local state and temp files are not (reacting to them would loop)', () => {
    for (const file of ['pages/a.md', 'index.json', 'index.md', 'log.jsonl', 'SCHEMA.md', 'pages']) assert.equal(isWikiContent(file), true, file);
    for (const file of ['.cache/write.lock', '.cache/other-state.json', '.cache', 'pages/.a.md.rwtmp-12-ab', 'index.json.tmp']) assert.equal(isWikiContent(file), false, file);
  });
});
