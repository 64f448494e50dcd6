import * as assert from 'node:assert/strict';
import type { DriftIssue } from '../../../../src/core/drift/driftEngine';
import { replaceIssues } from '../../../../src/core/drift/issueScope';

function issue(page: string, path: string, line: number, code: DriftIssue['code'] = 'body-changed'): DriftIssue {
  return { code, message: `${path} changed`, severity: 'info', page, range: { start: { line, character: 2 }, end: { line, character: 9 } }, data: { citation: path, path } };
}

describe('replacing drift issues by what a report covers', () => {
  const before = new Map([
    ['a.md', [issue('a.md', 'src/x.py', 3), issue('a.md', 'src/y.go', 7)]],
    ['b.md', [issue('b.md', 'src/y.go', 1)]],
  ]);

  it('a report of the whole wiki replaces everything', () => {
    const after = replaceIssues(before, { issues: [issue('c.md', 'src/z.rs', 4)] });
    assert.deepEqual([...after.keys()], ['c.md']);
  });

  it('a report of some pages replaces those pages only, clearing one that is now clean', () => {
    const after = replaceIssues(before, { pages: ['a.md'], issues: [] });
    assert.deepEqual([...after.keys()], ['b.md']);
    assert.equal(after.get('b.md'), before.get('b.md'));
  });

  it('a save\'s report replaces only the issues of citations into the saved files, in line order', () => {
    const after = replaceIssues(before, { pages: ['a.md', 'b.md'], paths: ['src/x.py'], issues: [issue('a.md', 'src/x.py', 9, 'signature-changed')] });
    assert.deepEqual(after.get('a.md')!.map((i) => `${i.code} ${i.data.path}:${i.range.start.line}`), ['body-changed src/y.go:7', 'signature-changed src/x.py:9']);
    assert.deepEqual(after.get('b.md'), before.get('b.md'), 'the other page\'s issue into another file stands');
    const fixed = replaceIssues(before, { pages: ['a.md'], paths: ['src/x.py', 'src/y.go'], issues: [] });
    assert.equal(fixed.has('a.md'), false, 'a page left with no issue is dropped');
  });
});
