import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { headingFragment, wikiPreviewPlugin, type PreviewLocation } from '../../../../src/core/authoring';

/** A markdown-it as VS Code's preview sets it up (html off), with the plugin, rendering a page of `.wiki/pages/`. */
function render(markdown: string, documentPath = '.wiki/pages/notes.md'): string {
  const md = new MarkdownIt({ html: false }).use(wikiPreviewPlugin, {
    locate: (env: unknown): PreviewLocation | undefined => ((env as { documentPath?: string }).documentPath ? { documentPath: (env as { documentPath: string }).documentPath, pagesDir: '.wiki/pages' } : undefined),
  });
  return md.render(markdown, { documentPath });
}

describe('Markdown preview plugin: [[links]] and citations', () => {
  it('links [[slug]], [[slug|label]] and [[slug#heading]] to the page file beside the page', () => {
    assert.equal(render('See [[request-pipeline]].'), '<p>See <a href="request-pipeline.md" title="Wiki page request-pipeline" class="repo-wiki-link">request-pipeline</a>.</p>\n');
    assert.match(render('See [[request-pipeline|the pipeline]].'), /<a href="request-pipeline\.md"[^>]*>the pipeline<\/a>/);
    assert.match(render('See [[request-pipeline#Retry Budget (v2)]].'), /<a href="request-pipeline\.md#retry-budget-v2" title="Wiki page request-pipeline, Retry Budget \(v2\)"[^>]*>request-pipeline › Retry Budget \(v2\)<\/a>/);
  });

  it('links from a document elsewhere in the workspace with a path to the pages folder', () => {
    assert.match(render('[[request-pipeline]] and `src/router.ts:Router.handle`', 'docs/guide/intro.md'), /href="\.\.\/\.\.\/\.wiki\/pages\/request-pipeline\.md".*href="\.\.\/\.\.\/src\/router\.ts"/);
  });

  it('links code citations to the cited file, relative to the page', () => {
    assert.equal(
      render('Uses `src/router.ts:Router.handle` and `package.json`.'),
      '<p>Uses <a href="../../src/router.ts" title="Open Router.handle in src/router.ts" class="repo-wiki-citation"><code>src/router.ts:Router.handle</code></a> and <a href="../../package.json" title="Open package.json" class="repo-wiki-citation"><code>package.json</code></a>.</p>\n',
    );
    assert.match(render('`src/a#1.ts` `src/ünï.ts`'), /href="\.\.\/\.\.\/src\/a%231\.ts".*href="\.\.\/\.\.\/src\/%C3%BCn%C3%AF\.ts"/);
  });

  it('escapes labels and leaves what is not a link as it was', () => {
    assert.match(render('[[storage|<img src=x onerror=alert(1)>]]'), /<a href="storage\.md"[^>]*>&lt;img src=x onerror=alert\(1\)&gt;<\/a>/);
    for (const text of ['[[Not A Slug]]', '[[../../etc/passwd]]', '[[a/b]]', '[[unclosed']) {
      assert.equal(render(text), `<p>${new MarkdownIt().utils.escapeHtml(text)}</p>\n`, text);
    }
    // Outside the workspace, plain code, and code inside a link: untouched.
    assert.equal(render('`/etc/passwd` `../secret.ts` `x + 1` [`src/a.ts`](https://example.com)'), '<p><code>/etc/passwd</code> <code>../secret.ts</code> <code>x + 1</code> <a href="https://example.com"><code>src/a.ts</code></a></p>\n');
    assert.equal(render('```\n[[pipeline]] `src/a.ts`\n```'), '<pre><code>[[pipeline]] `src/a.ts`\n</code></pre>\n');
  });

  it('renders ordinary markdown as markdown-it does without it', () => {
    const markdown = '# Title\n\n- a [link](https://example.com) and *emphasis*\n- `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[ref]: https://example.com\n[not a wiki] link [x][ref]';
    assert.equal(render(markdown), new MarkdownIt({ html: false }).render(markdown));
  });

  it('leaves a document outside any wiki alone', () => {
    assert.equal(render('[[request-pipeline]] `src/a.ts`', ''), '<p>[[request-pipeline]] <code>src/a.ts</code></p>\n');
  });

  it('makes heading anchors as the preview does', () => {
    assert.equal(headingFragment('  Retry Budget (v2)! '), 'retry-budget-v2');
    assert.equal(headingFragment('Why `fetch` waits'), 'why-fetch-waits');
  });
});
