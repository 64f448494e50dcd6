import * as assert from 'node:assert/strict';
import { buildIndex, renderIndexJson, renderIndexMarkdown } from '../../../../src/core/index/wikiIndex';
import { indexOutOfDate } from '../../../../src/core/lint/indexLint';
import { parsePage } from '../../../../src/core/pages/page';
import { pageText } from '../../../support/fakes';

const page = (slug: string, title: string, body = '') => parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(pageText(title, body)));
const files = (json: string | undefined, markdown: string | undefined) => ({ json: { path: '.wiki/index.json', text: json }, markdown: { path: '.wiki/index.md', text: markdown } });
const FIX = 'Run "repo-wiki index rebuild" (in VS Code, "Repo Wiki: Rebuild index") and commit the result.';

describe('indexOutOfDate', () => {
  const pages = [page('a', 'A', 'see [[b]]'), page('b', 'B', 'see [[a]]')];
  const current = buildIndex(pages);

  it('finds nothing when both index files are what a rebuild writes', () => {
    assert.deepEqual(indexOutOfDate(pages, files(renderIndexJson(current), renderIndexMarkdown(current))), []);
  });

  it('reports each file a rebuild would change, on the file, saying why and what to run', () => {
    const older = buildIndex(pages.slice(0, 1));
    const issues = indexOutOfDate(pages, files(renderIndexJson(older), renderIndexMarkdown(older)));
    assert.deepEqual(issues.map(({ code, severity, page: file, message, range }) => ({ code, severity, file, message, line: range.start.line })), [
      { code: 'index-out-of-date', severity: 'error', file: '.wiki/index.json', message: `.wiki/index.json is out of date: it lists 1 page, and .wiki/pages has 2. ${FIX}`, line: 0 },
      { code: 'index-out-of-date', severity: 'error', file: '.wiki/index.md', message: `.wiki/index.md is out of date: it does not match the pages. ${FIX}`, line: 0 },
    ]);
  });

  it('says when a file is missing, has conflict markers, or lists the right number of pages with stale entries', () => {
    const messages = (json: string | undefined) => indexOutOfDate(pages, files(json, renderIndexMarkdown(current))).map((issue) => issue.message.split('. ')[0]);
    assert.deepEqual(messages(undefined), ['.wiki/index.json is out of date: it is missing']);
    assert.deepEqual(messages(`<<<<<<< ours\n${renderIndexJson(current)}=======\n{}\n>>>>>>> theirs\n`), ['.wiki/index.json is out of date: it has merge conflict markers']);
    const retitled = buildIndex([page('a', 'Old A', 'see [[b]]'), pages[1]]);
    assert.deepEqual(messages(renderIndexJson(retitled)), ['.wiki/index.json is out of date: it does not match the pages']);
  });
});
