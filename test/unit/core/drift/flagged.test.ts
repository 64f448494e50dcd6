import * as assert from 'node:assert/strict';
import { flaggedPages } from '../../../../src/core/drift/flagged';
import type { DriftCode } from '../../../../src/core/drift/driftCodes';
import type { DriftIssue } from '../../../../src/core/drift/driftEngine';
import { parsePage } from '../../../../src/core/pages/page';
import { pageText } from '../../../support/fakes';

const page = (slug: string) => parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(pageText(slug)));
const issue = (slug: string, code: DriftCode, citation: string): DriftIssue => ({
  code, severity: 'warning', message: '', page: `.wiki/pages/${slug}.md`, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, data: { citation, path: citation.split(':')[0] },
});

describe('flaggedPages', () => {
  it('lists each page with drift a review clears once, with every such flag, in report order', () => {
    const pages = [page('a'), page('b'), page('c')];
    const flagged = flaggedPages(pages, [
      issue('b', 'body-changed', 'src/x.ts:X'),
      issue('a', 'missing-symbol', 'src/gone.ts:Gone'),
      issue('a', 'unverified', 'src/y.ts:Y'),
      issue('b', 'signature-changed', 'src/x.ts:Z'),
      issue('a', 'type-changed', 'src/y.ts:T'),
      issue('c', 'moved-symbol', 'src/m.ts:M'),
    ]);
    assert.deepEqual(flagged, [
      { slug: 'b', relPath: '.wiki/pages/b.md', flags: [{ code: 'body-changed', citation: 'src/x.ts:X' }, { code: 'signature-changed', citation: 'src/x.ts:Z' }] },
      { slug: 'a', relPath: '.wiki/pages/a.md', flags: [{ code: 'unverified', citation: 'src/y.ts:Y' }, { code: 'type-changed', citation: 'src/y.ts:T' }] },
    ], 'missing and moved code needs an edit, not a review: page c is not listed');
  });
});
