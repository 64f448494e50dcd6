import * as assert from 'node:assert/strict';
import { LinkIndex, PageLanguageService, PageSearch, type PageDocument } from '../../../../src/core/authoring';
import type { SourceSymbol } from '../../../../src/core/drift/symbols';
import type { Position, Range, WikiPage } from '../../../../src/core/model';
import { parsePage } from '../../../../src/core/pages/page';
import { fixedClock, pageText } from '../../../support/fakes';

const parse = (slug: string, text: string) => parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(text));
const symbol = (name: string, startLine: number, endLine: number, kind: SourceSymbol['kind'] = 'function'): SourceSymbol => ({ name, kind, startLine, endLine, sig: '00000000', body: '00000000' });

const ROUTER = ['export class Router {', '  handle(path: string) {', '    return path;', '  }', '}', 'export function splitPath(p: string) {', '  return p.split("/");', '}'].join('\n');

/** A small wiki and workspace in memory; `drift` maps `page:line:character` to the issue there. */
function fixture(options: { drift?: Record<string, { code: string; message: string }> } = {}) {
  const texts: Record<string, string> = {
    pipeline: pageText('Request pipeline', '# Request pipeline\n\nIntro.\n\n## Retries\n\nSee [[storage]].\n\n## Timeouts\n', { summary: '"How requests flow."', tags: '[http, retry]' }),
    storage: pageText('Storage layer', 'Uses [[pipeline#Retries]] and `src/router.ts:Router.handle`.\n\n```\n[[pipeline]] in a fence\n```\n', { status: 'stale', stale_reason: '"moved to S3"' }),
    notes: pageText('Notes', 'Back to [[pipeline|the pipeline]].\nAlso `src/router.ts:Router.handle` here.', { topic: 'other', updated: '2026-11-12' }),
  };
  const pages = Object.entries(texts).map(([slug, text]) => parse(slug, text));
  const files: Record<string, string> = { 'src/router.ts': ROUTER, 'src/server/app.ts': 'export const app = 1;\n', 'README.md': '# hi\n', 'tools/build.py': 'def main():\n    pass\n', 'package.json': '{\n  "scripts": {\n    "test": "mocha"\n  }\n}\n' };
  const symbolCalls: string[] = [];
  const service = new PageLanguageService({
    pages: { pages: async () => pages },
    files: { list: async () => Object.keys(files).sort(), read: async (relPath) => files[relPath] },
    symbols: {
      symbolsOf: async (relPath) => {
        symbolCalls.push(relPath);
        if (relPath === 'tools/build.py') return [symbol('main', 0, 1)];
        return relPath === 'src/router.ts' ? [symbol('Router', 0, 4, 'class'), symbol('Router.handle', 1, 3, 'method'), symbol('splitPath', 5, 7)] : [];
      },
    },
    drift: { issueAt: async (page: string, range: Range) => options.drift?.[`${page}:${range.start.line}:${range.start.character}`] },
    ages: { ageOf: async (slug) => (slug === 'pipeline' ? 'stable for 2 months' : undefined) },
    clock: fixedClock('2026-11-22T10:00:00.000Z'),
  });
  const doc = (slug: string, text = texts[slug]): PageDocument => ({ slug, relPath: `.wiki/pages/${slug}.md`, text });
  return { service, pages, texts, doc, symbolCalls };
}

/** A document whose text has `|` where the cursor is; returns the document and that position. */
function withCursor(slug: string, marked: string): { document: PageDocument; position: Position } {
  const offset = marked.indexOf('|');
  const text = marked.slice(0, offset) + marked.slice(offset + 1);
  const before = text.slice(0, offset).split('\n');
  return { document: { slug, relPath: `.wiki/pages/${slug}.md`, text }, position: { line: before.length - 1, character: before[before.length - 1].length } };
}

const positionOf = (text: string, needle: string, shift = 0): Position => {
  const offset = text.indexOf(needle) + shift;
  const before = text.slice(0, offset).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length };
};

describe('PageLanguageService', () => {
  describe('completion', () => {
    it('completes [[ with page titles and slugs, fuzzily, with summaries and the closing brackets', async () => {
      const { service } = fixture();
      const { document, position } = withCursor('new', pageText('New', 'See [[rqpip|'));
      const result = await service.completions(document, position);
      assert.equal(result.items[0].label, 'Request pipeline');
      assert.equal(result.items[0].insertText, 'pipeline]]');
      assert.equal(result.items[0].documentation, 'How requests flow.');
      assert.deepEqual(result.items[0].range, { start: { line: position.line, character: position.character - 5 }, end: position });
      assert.ok(!result.items.some((item) => item.label === 'Notes'), 'a page that does not match is not offered');
      assert.equal(result.incomplete, true);
    });

    it('matches slugs too, and does not add ]] when they are already there', async () => {
      const { service } = fixture();
      const { document, position } = withCursor('new', pageText('New', 'See [[stor|]] now'));
      const [first] = (await service.completions(document, position)).items;
      assert.equal(first.insertText, 'storage');
      assert.equal(first.detail, 'storage (stale)');
    });

    it('completes [[slug# with the headings of that page', async () => {
      const { service } = fixture();
      const { document, position } = withCursor('new', pageText('New', 'See [[pipeline#ret|'));
      const items = (await service.completions(document, position)).items;
      assert.equal(items[0].insertText, 'Retries]]');
      assert.ok(!items.some((item) => item.label === 'Timeouts'));
      assert.equal(items[0].kind, 'heading');
    });

    it('completes a path after a backtick, then the symbols of that file after :', async () => {
      const { service, symbolCalls } = fixture();
      const paths = await service.completions(...Object.values(withCursor('new', pageText('New', 'Code: `srcrout|'))) as [PageDocument, Position]);
      assert.equal(paths.items[0].label, 'src/router.ts');
      assert.equal(paths.items[0].kind, 'file');
      assert.ok(!paths.items.some((item) => item.label === 'README.md'));
      const { document, position } = withCursor('new', pageText('New', 'Code: `src/router.ts:hand|'));
      const symbols = await service.completions(document, position);
      assert.deepEqual(symbols.items.map((item) => item.insertText), ['Router.handle`']);
      assert.deepEqual(symbolCalls, ['src/router.ts']);
    });

    it('completes the symbols of a file in any language drift parses (Python here)', async () => {
      const { service } = fixture();
      const { document, position } = withCursor('new', pageText('New', 'Run `tools/build.py:ma|'));
      assert.deepEqual((await service.completions(document, position)).items.map((item) => item.insertText), ['main`']);
    });

    it('offers nothing inside fenced code or after a closed code span', async () => {
      const { service } = fixture();
      const fenced = withCursor('new', pageText('New', '```\n[[pip|\n```\n'));
      assert.deepEqual((await service.completions(fenced.document, fenced.position)).items, []);
      const closed = withCursor('new', pageText('New', 'a `x` b|'));
      assert.deepEqual((await service.completions(closed.document, closed.position)).items, []);
    });

    it('completes frontmatter keys and the allowed values of topic, status, tags and superseded_by', async () => {
      const { service } = fixture();
      const key = withCursor('new', '---\ntitle: New\nsta|\n---\n');
      assert.ok((await service.completions(key.document, key.position)).items.some((item) => item.insertText === 'status: '));
      const topic = withCursor('new', '---\ntitle: New\ntopic: pat|\n---\n');
      assert.ok((await service.completions(topic.document, topic.position)).items.some((item) => item.label === 'patterns'));
      const status = withCursor('new', '---\nstatus: |\n---\n');
      assert.deepEqual((await service.completions(status.document, status.position)).items.map((item) => item.label), ['active', 'stale', 'superseded', 'archived']);
      const tags = withCursor('new', '---\ntags: [http, |\n---\n');
      assert.ok((await service.completions(tags.document, tags.position)).items.some((item) => item.label === 'retry'));
      const superseded = withCursor('new', '---\nsuperseded_by: |\n---\n');
      assert.ok((await service.completions(superseded.document, superseded.position)).items.some((item) => item.label === 'storage'));
    });
  });

  describe('definition', () => {
    it('opens a linked page, at the heading a link names', async () => {
      const { service, doc, texts, pages } = fixture();
      const storage = doc('storage');
      const location = await service.definition(storage, positionOf(texts.storage, '[[pipeline#', 3));
      const retries = pages.find((p) => p.slug === 'pipeline')!.body.split('\n').indexOf('## Retries') + pages.find((p) => p.slug === 'pipeline')!.bodyStartLine;
      assert.deepEqual(location, { relPath: '.wiki/pages/pipeline.md', range: { start: { line: retries, character: 0 }, end: { line: retries, character: 10 } } });
      const plain = await service.definition(doc('notes'), positionOf(texts.notes, '[[pipeline', 4));
      assert.deepEqual(plain?.range.start, { line: 0, character: 0 });
    });

    it('opens a cited symbol at its declaration', async () => {
      const { service, doc, texts } = fixture();
      const location = await service.definition(doc('storage'), positionOf(texts.storage, 'Router.handle'));
      assert.deepEqual(location, { relPath: 'src/router.ts', range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } } });
    });

    it('finds nothing for a link in fenced code or a broken link', async () => {
      const { service, doc, texts } = fixture();
      assert.equal(await service.definition(doc('storage'), positionOf(texts.storage, '[[pipeline]] in a fence', 3)), undefined);
      const broken = withCursor('x', pageText('X', '[[gon|e]]'));
      assert.equal(await service.definition(broken.document, broken.position), undefined);
    });
  });

  describe('hover', () => {
    it('shows a linked page title, summary, status and age', async () => {
      const { service, doc, texts } = fixture();
      const hover = await service.hover(doc('notes'), positionOf(texts.notes, '[[pipeline', 3));
      assert.equal(hover?.title, 'Request pipeline');
      assert.equal(hover?.lines[0], 'How requests flow.');
      assert.match(hover!.lines[1], /status: active/);
      assert.match(hover!.lines[1], /updated 2026-11-02 \(20 days ago\)/);
      assert.match(hover!.lines[1], /age: stable for 2 months/);
    });

    it('says why a stale page is stale', async () => {
      const { service, doc, texts } = fixture();
      const hover = await service.hover(doc('pipeline'), positionOf(texts.pipeline, '[[storage', 3));
      assert.ok(hover!.lines.includes('Stale: moved to S3'));
    });

    it('shows a citation\'s current code and its drift state', async () => {
      const { texts } = fixture();
      const at = positionOf(texts.storage, 'src/router.ts:Router.handle');
      const { service, doc } = fixture({ drift: { [`.wiki/pages/storage.md:${at.line}:${at.character}`]: { code: 'body-changed', message: 'The code of Router.handle changed since this page was verified.' } } });
      const hover = await service.hover(doc('storage'), at);
      assert.equal(hover?.title, 'src/router.ts:Router.handle');
      assert.equal(hover?.code?.text, '  handle(path: string) {\n    return path;\n  }');
      assert.equal(hover?.code?.language, 'typescript');
      assert.equal(hover?.lines[0], 'Drift (body-changed): The code of Router.handle changed since this page was verified.');
      const clean = await fixture().service.hover(doc('storage'), at);
      assert.equal(clean?.lines[0], 'Not checked yet.');
    });

    it('reads line ranges, JSON keys and folders as drift does: the cited lines, the key\'s entry, the folder', async () => {
      const { service, doc } = fixture();
      const text = pageText('Forms', 'Loop `src/router.ts#L6-L7`, script `package.json:scripts.test`, folder `src/server/`, gone `src/nowhere/`.');
      const forms = { ...doc('forms', text), text };
      const range = await service.hover(forms, positionOf(text, 'src/router.ts#L6'));
      assert.equal(range?.code?.text, 'export function splitPath(p: string) {\n  return p.split("/");');
      assert.equal(range?.lines[1], 'src/router.ts, lines 6–7');
      assert.deepEqual(await service.definition(forms, positionOf(text, 'src/router.ts#L6')), { relPath: 'src/router.ts', range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } } });
      const key = await service.hover(forms, positionOf(text, 'package.json:scripts'));
      assert.equal(key?.code?.text, '    "test": "mocha"');
      assert.equal((await service.hover(forms, positionOf(text, 'src/server/')))?.lines[1], 'The folder src/server/ exists.');
      assert.equal((await service.hover(forms, positionOf(text, 'src/nowhere/')))?.lines[1], 'The folder src/nowhere/ does not exist, or holds no file.');
    });
  });

  it('makes links and citations clickable, not links in code', async () => {
    const { service, doc } = fixture();
    const links = await service.documentLinks(doc('storage'));
    assert.deepEqual(links.map((link) => [link.kind, link.relPath, link.line]), [['page', '.wiki/pages/pipeline.md', 13], ['citation', 'src/router.ts', undefined]]);
  });

  describe('references', () => {
    it('lists the pages linking to a page, from a link to it or from its title line', async () => {
      const { service, doc, texts } = fixture();
      const fromLink = await service.references(doc('pipeline'), positionOf(texts.pipeline, '[[storage', 3));
      assert.deepEqual(fromLink.map((l) => `${l.relPath}:${l.range.start.line}`), ['.wiki/pages/pipeline.md:15']);
      const fromTitle = await service.references(doc('pipeline'), positionOf(texts.pipeline, 'title:'));
      assert.deepEqual(fromTitle.map((l) => `${l.relPath}:${l.range.start.line}`).sort(), ['.wiki/pages/notes.md:9', '.wiki/pages/storage.md:10']);
    });

    it('lists every page citing the same symbol', async () => {
      const { service, doc, texts } = fixture();
      const refs = await service.references(doc('storage'), positionOf(texts.storage, 'Router.handle'));
      assert.deepEqual(refs.map((l) => `${l.relPath}:${l.range.start.line}`), ['.wiki/pages/storage.md:10', '.wiki/pages/notes.md:10']);
    });
  });

  it('outlines headings, nested by level', () => {
    const { service, doc } = fixture();
    const outline = service.documentSymbols(doc('pipeline'));
    assert.deepEqual(outline.map((s) => [s.text, s.children.map((c) => c.text)]), [['Request pipeline', ['Retries', 'Timeouts']]]);
  });

  it('finds pages by title for Ctrl+T', async () => {
    const { service } = fixture();
    const found = await service.workspaceSymbols('stlay');
    assert.deepEqual(found.map((s) => [s.name, s.relPath]), [['Storage layer', '.wiki/pages/storage.md']]);
  });

  it('offers a rename on a link (the slug selected) and on the title line, nowhere else', () => {
    const { service, doc, texts } = fixture();
    const onLink = service.renameTarget(doc('notes'), positionOf(texts.notes, '[[pipeline', 5));
    assert.equal(onLink?.slug, 'pipeline');
    const line = texts.notes.split('\n')[onLink!.range.start.line];
    assert.equal(line.slice(onLink!.range.start.character, onLink!.range.end.character), 'pipeline');
    assert.equal(service.renameTarget(doc('notes'), positionOf(texts.notes, 'title:'))?.slug, 'notes');
    assert.equal(service.renameTarget(doc('notes'), positionOf(texts.notes, 'Back to')), undefined);
  });
});

describe('LinkIndex', () => {
  it('lists backlinks with their line text, leaving out self-links and links in code', () => {
    const pages: WikiPage[] = [
      parse('a', pageText('A', 'Self [[a]] and [[b#Top|b]].\n`[[b]]` is code.')),
      parse('b', pageText('B', 'nothing')),
    ];
    const index = LinkIndex.of(pages);
    assert.deepEqual(index.backlinks('b').map((l) => [l.from, l.heading, l.lineText]), [['a', 'Top', 'Self [[a]] and [[b#Top|b]].']]);
    assert.deepEqual(index.backlinks('a'), []);
    assert.equal(LinkIndex.of(pages), index, 'built once per list of pages');
  });
});

describe('PageSearch', () => {
  it('finds pages by words of their summary and tags, and puts the active page\'s backlinks first', () => {
    const { pages } = fixture();
    const search = new PageSearch(pages);
    assert.equal(search.search('flow')[0].slug, 'pipeline');
    assert.equal(search.search('retry')[0].slug, 'pipeline');
    const all = search.search('', 'pipeline');
    assert.deepEqual(all.map((hit) => [hit.slug, hit.backlink]), [['notes', true], ['storage', true]]);
    assert.deepEqual(search.search('', 'storage').map((hit) => hit.slug), ['pipeline', 'notes']);
  });
});

describe('[[slug#heading]] links', () => {
  it('point at the page: lint does not call them broken, the index lists the slug, [[#heading]] is no page link', async () => {
    const { lintPages } = await import('../../../../src/core/lint/lint');
    const { buildIndex } = await import('../../../../src/core/index/wikiIndex');
    const pages = [parse('a', pageText('A', 'See [[b#Some heading|there]] and [[#Local]].')), parse('b', pageText('B', '# Some heading\n[[a]]'))];
    assert.deepEqual(pages[0].links.map((link) => [link.target, link.heading, link.label]), [['b', 'Some heading', 'there']]);
    assert.deepEqual(lintPages(pages).filter((issue) => issue.code === 'broken-link'), []);
    assert.deepEqual(buildIndex(pages).pages.find((entry) => entry.slug === 'a')?.links, ['b']);
  });
});
