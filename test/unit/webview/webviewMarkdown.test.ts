import * as assert from 'node:assert/strict';
import { codeCitation, parseWikiLink, renderMarkdown, stableBoundary } from '../../../src/webview/markdown';
import { clip, highlightParts, newRequestId, relativeDate } from '../../../src/webview/format';

/** Every tag the renderer may produce; anything else means markup leaked through. */
const ALLOWED_TAGS = new Set([
  'p', 'br', 'hr', 'em', 'strong', 's', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td',
  'span', 'div', 'button',
]);
const ALLOWED_ATTRIBUTES = new Set(['class', 'title', 'type', 'data-slug', 'data-citation', 'aria-label', 'start']);

/** The tags in `html` (escaped text never contains `<`) with their attributes. */
function tags(html: string): { name: string; attributes: [string, string][]; raw: string }[] {
  return [...html.matchAll(/<\/?([a-zA-Z0-9]+)([^>]*)>/g)].map((match) => ({
    name: match[1].toLowerCase(),
    raw: match[0],
    attributes: [...match[2].matchAll(/\s([^\s=]+)(?:="([^"]*)")?/g)].map((a) => [a[1], a[2] ?? ''] as [string, string]),
  }));
}

/** Asserts the output is inert: known tags, known attributes, no handlers, no URLs in attributes. */
function assertInert(html: string): void {
  assert.ok(!/<script/i.test(html), 'no <script');
  assert.ok(!/<(img|a|iframe|object|embed|svg|math|style|link|meta|form|input)\b/i.test(html), 'no active elements');
  for (const tag of tags(html)) {
    assert.ok(ALLOWED_TAGS.has(tag.name), `unexpected tag ${tag.raw}`);
    assert.ok(!/\son\w+\s*=/i.test(tag.raw), `event handler in ${tag.raw}`);
    assert.ok(!/href=|src=|style=/i.test(tag.raw), `href/src/style in ${tag.raw}`);
    for (const [name, value] of tag.attributes) {
      assert.ok(ALLOWED_ATTRIBUTES.has(name), `unexpected attribute ${name} in ${tag.raw}`);
      assert.ok(!/(javascript|vbscript|data|file):/i.test(value), `scheme in attribute ${name}="${value}"`);
    }
  }
}

describe('webview markdown', () => {
  describe('renders attacks as inert text', () => {
    const attacks: Record<string, string> = {
      'script tag': '<script>alert(1)</script>',
      'img onerror': '<img src=x onerror=alert(1)>',
      'inline html in a paragraph': 'Hello <b onmouseover="alert(1)">there</b>',
      'javascript link': '[x](javascript:alert(1))',
      'uppercase javascript link': '[x](JAVASCRIPT:alert(1))',
      'javascript link with entities': '[x](&#106;avascript:alert(1))',
      'javascript link with whitespace': '[x]( javascript:alert(1) )',
      'vbscript link': '[x](vbscript:msgbox(1))',
      'file link': '[x](file:///etc/passwd)',
      'data link': '[x](data:text/html,<script>alert(1)</script>)',
      'data image': '![x](data:image/png;base64,AAAA)',
      'image with handler-like title': '![x](https://example.com/a.png "onerror=alert(1)")',
      'raw anchor': '<a href="javascript:alert(1)">x</a>',
      'wiki link attribute break': '[[slug" onclick="x]]',
      'wiki link label break': '[[slug|x" onclick="y]]',
      'autolink http': '<https://example.com/?q="onmouseover=1>',
      'autolink javascript': '<javascript:alert(1)>',
      'autolink mailto': '<mailto:a@example.com>',
      'reference link javascript': '[x][1]\n\n[1]: javascript:alert(1)',
      'reference link title': '[x][1]\n\n[1]: https://example.com "a\\" onclick=\\"b"',
      'fence language break': '```js" onclick="x\nalert(1)\n```',
      'fence language html': '```<script>\nx\n```',
      'citation attribute break': '`src/a" onclick="x.ts`',
      'table alignment': '| a | b |\n|--:|:-:|\n| 1 | 2 |',
      'html comment': '<!-- x --><style>body{}</style>',
      'entity tricks': '&lt;script&gt;alert(1)&lt;/script&gt; &#60;img src=x onerror=alert(1)&#62;',
    };
    for (const [name, input] of Object.entries(attacks)) {
      it(name, () => assertInert(renderMarkdown(input)));
    }

    it('shows raw HTML as escaped text', () => {
      const html = renderMarkdown('<script>alert(1)</script>');
      assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    });

    it('shows the address of http(s) links as text, and nothing for other schemes', () => {
      const html = renderMarkdown('[docs](https://example.com/x) and [x](javascript:alert(1))');
      assert.match(html, /<span class="ext-link" title="https:\/\/example.com\/x">docs<\/span> <span class="link-url">\(https:\/\/example.com\/x\)<\/span>/);
      assert.ok(!/<span[^>]*>x<\/span>/.test(html));
      assert.match(html, /\[x\]\(javascript:alert\(1\)\)/);
    });

    it('keeps a 1 MB answer fast enough', function () {
      this.timeout(10000);
      const chunk = '## Heading [[page-one]]\n\nSome *text* with `src/a.ts:Foo.bar` and [[x|y]] and <b>html</b> [[\n\n```ts\nconst a = 1;\n```\n\n';
      const input = chunk.repeat(Math.ceil(1_000_000 / chunk.length));
      const started = Date.now();
      const html = renderMarkdown(input);
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 5000, `took ${elapsed} ms`);
      assert.ok(html.length > input.length / 2);
      assertInert(html.slice(0, 20000));
    });

    it('stays linear on many unclosed [[', function () {
      this.timeout(10000);
      const started = Date.now();
      renderMarkdown('[['.repeat(200_000));
      assert.ok(Date.now() - started < 5000);
    });
  });

  describe('wiki links', () => {
    it('turns [[slug]] into a page link', () => {
      const html = renderMarkdown('See [[request-pipeline]].');
      assert.match(html, /<button type="button" class="page-link" data-slug="request-pipeline" title="[^"]*">request-pipeline<\/button>/);
    });

    it('turns [[slug|label]] into a page link with the label', () => {
      const html = renderMarkdown('See [[request-pipeline|the pipeline]].');
      assert.match(html, /class="page-link" data-slug="request-pipeline"[^>]*>the pipeline<\/button>/);
    });

    it('escapes the label', () => {
      const html = renderMarkdown('[[a-b|<img src=x onerror=alert(1)>]]');
      assert.match(html, /data-slug="a-b"[^>]*>&lt;img src=x onerror=alert\(1\)&gt;<\/button>/);
      assertInert(html);
    });

    it('marks stale pages', () => {
      assert.match(renderMarkdown('[[old-page]]', { stale: new Set(['old-page']) }), /class="page-link stale" data-slug="old-page"/);
    });

    it('leaves invalid slugs as text', () => {
      for (const input of ['[[Not A Slug]]', '[[../etc]]', '[[a--b]]', `[[${'a'.repeat(81)}]]`, '[[]]', '[[a|b\nc]]']) {
        assert.ok(!renderMarkdown(input).includes('page-link'), input);
      }
      assert.deepEqual(parseWikiLink('a-b|  Label '), { slug: 'a-b', label: 'Label' });
      assert.equal(parseWikiLink('A-b'), undefined);
    });

    it('does not link inside code', () => {
      assert.ok(!renderMarkdown('`[[a]]`').includes('page-link'));
      assert.ok(!renderMarkdown('```\n[[a]]\n```').includes('page-link'));
    });
  });

  describe('code citations', () => {
    it('turns a citation in inline code into a code link', () => {
      const html = renderMarkdown('Look at `src/a.ts:Foo.bar`.');
      assert.match(html, /<button type="button" class="code-link" data-citation="src\/a.ts:Foo.bar" title="[^"]*"><code>src\/a.ts:Foo.bar<\/code><\/button>/);
    });

    it('recognises whole-file citations and strips a trailing ()', () => {
      assert.equal(codeCitation('src/a.ts'), 'src/a.ts');
      assert.equal(codeCitation('package.json'), 'package.json');
      assert.equal(codeCitation(' src/a.ts:run() '), 'src/a.ts:run');
      assert.equal(codeCitation('docs/readme'), 'docs/readme');
    });

    it('leaves ordinary inline code as code', () => {
      for (const input of ['Foo.bar', 'e.g.', 'npm test', 'a = b', 'x:y', 'README.md:Foo', '/etc/passwd', '../secret.ts', 'https://example.com/a.ts', 'javascript:alert(1)']) {
        assert.equal(codeCitation(input), undefined, input);
      }
      assert.equal(renderMarkdown('Run `npm test`.'), '<p>Run <code>npm test</code>.</p>\n');
    });
  });

  describe('code blocks', () => {
    it('keeps the language class and escapes the content', () => {
      const html = renderMarkdown('```ts\nconst a = "<b>" && 1 < 2;\n```');
      assert.match(html, /<code class="language-ts">const a = &quot;&lt;b&gt;&quot; &amp;&amp; 1 &lt; 2;\n<\/code>/);
      assert.match(html, /<span class="code-lang">ts<\/span>/);
      assertInert(html);
    });

    it('drops a language that is not a plain word', () => {
      const html = renderMarkdown('```js" onclick="x\ny\n```');
      assert.match(html, /<pre><code>y\n<\/code><\/pre>/);
    });

    it('renders indented code blocks escaped, without a language', () => {
      assert.match(renderMarkdown('    <script>x</script>'), /<pre><code>&lt;script&gt;x&lt;\/script&gt;\n<\/code><\/pre>/);
    });
  });

  it('renders table alignment as classes', () => {
    const html = renderMarkdown('| a | b |\n|--:|:-:|\n| 1 | 2 |');
    assert.match(html, /<th class="align-right">a<\/th>/);
    assert.match(html, /<td class="align-center">2<\/td>/);
  });
});

describe('webview markdown: streaming boundaries', () => {
  it('cuts after a blank line before a new block', () => {
    const text = 'Para one\nstill one\n\nPara two\n\nPara three growing';
    assert.equal(stableBoundary(text), text.indexOf('Para three'));
  });

  it('never cuts inside a fenced code block', () => {
    const text = 'Intro\n\n```ts\nconst a = 1;\n\nconst b = 2;\n';
    assert.equal(stableBoundary(text), text.indexOf('```'));
    const closed = `${text}\`\`\`\n\nAfter\n\nMore`;
    assert.equal(stableBoundary(closed), closed.indexOf('More'));
  });

  it('does not cut before indented continuations', () => {
    const text = '- item\n\n  continued\n\n';
    assert.equal(stableBoundary(text), 0);
  });

  it('renders the same as a whole when cut at the boundary (ordinary blocks)', () => {
    const text = '# Title\n\nSome text with [[a-page]].\n\n```js\nx\n\ny\n```\n\n> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nEnd\n';
    const cut = stableBoundary(text);
    assert.ok(cut > 0);
    assert.equal(renderMarkdown(text.slice(0, cut)) + renderMarkdown(text.slice(cut)), renderMarkdown(text));
  });

  it('starts from a given offset', () => {
    const text = 'A\n\nB\n\nC\n\nD';
    assert.equal(stableBoundary(text, text.indexOf('C')), text.indexOf('D'));
  });
});

describe('webview helpers', () => {
  it('makes request ids the host accepts', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newRequestId()));
    assert.equal(ids.size, 100);
    for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]{1,64}$/);
  });

  it('shows short relative dates', () => {
    const now = new Date(2026, 10, 22, 15, 0, 0);
    assert.equal(relativeDate(new Date(2026, 10, 22, 14, 59, 30).toISOString(), now), 'just now');
    assert.equal(relativeDate(new Date(2026, 10, 22, 14, 10).toISOString(), now), '50 min ago');
    assert.equal(relativeDate(new Date(2026, 10, 22, 9, 0).toISOString(), now), '6 h ago');
    assert.equal(relativeDate(new Date(2026, 10, 21, 23, 0).toISOString(), now), 'yesterday');
    assert.equal(relativeDate('not a date', now), '');
    assert.ok(relativeDate(new Date(2024, 0, 2).toISOString(), now).includes('2024'));
  });

  it('clips long text and highlights query words', () => {
    assert.equal(clip('x'.repeat(10_000), 10).length, 10);
    assert.equal(clip('short', 10), 'short');
    assert.deepEqual(highlightParts('The Pipeline runs', 'pipeline'), [
      { text: 'The ', match: false }, { text: 'Pipeline', match: true }, { text: ' runs', match: false },
    ]);
    assert.deepEqual(highlightParts('a.b', '.*'), [{ text: 'a.b', match: false }]);
  });
});
