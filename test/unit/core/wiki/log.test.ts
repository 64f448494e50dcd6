import * as assert from 'node:assert/strict';
import { commitMessage } from '../../../../src/core/git/commitMessage';
import { appendText, entriesSince, formatLogLine, parseLog } from '../../../../src/core/wiki/log';

describe('log.jsonl', () => {
  const line = (op: string, pages: string[] = []) => formatLogLine({ ts: '2026-11-22T10:00:00.000Z', op, pages });

  it('writes ts and op first, one line per entry', () => {
    assert.equal(formatLogLine({ op: 'init', ts: 't', pages: [] }), '{"ts":"t","op":"init","pages":[]}\n');
  });

  it('tolerates a torn last line on read and counts it', () => {
    const { entries, skipped } = parseLog(`${line('init')}${line('lint')}{"ts":"2026-11-22T1`);
    assert.deepEqual(entries.map((e) => e.op), ['init', 'lint']);
    assert.equal(skipped, 1);
  });

  it('starts a new line after a torn one instead of fusing with it', () => {
    assert.equal(appendText('{"ts":"x"', { ts: 't', op: 'stamp' }), '\n{"ts":"t","op":"stamp"}\n');
    assert.equal(appendText('\n', { ts: 't', op: 'stamp' }), '{"ts":"t","op":"stamp"}\n');
    assert.equal(appendText('', { ts: 't', op: 'stamp' }), '{"ts":"t","op":"stamp"}\n');
  });

  it('finds the entries added since the committed log, whatever merged in between', () => {
    const committed = line('init') + line('new-page', ['a']);
    const current = line('init') + line('new-page', ['a']) + line('new-page', ['b']) + line('lint');
    assert.deepEqual(entriesSince(committed, current).map((e) => e.op), ['new-page', 'lint']);
    assert.equal(entriesSince(undefined, current).length, 4);
  });
});

describe('commitMessage', () => {
  it('summarises operations and pages from the log', () => {
    const message = commitMessage(
      [{ ts: 't', op: 'new-page', pages: ['a'] }, { ts: 't', op: 'ingest', pages: ['a', 'b'] }],
      ['.wiki/pages/a.md', '.wiki/pages/b.md', '.wiki/log.jsonl'],
    );
    assert.equal(message, 'wiki: new-page, ingest (2 pages)\n\n- new-page: a\n- ingest: a, b\n');
  });

  it('falls back to the changed paths when the log says nothing', () => {
    assert.equal(commitMessage([], ['.wiki/pages/a.md']), 'wiki: update 1 page\n\n- .wiki/pages/a.md\n');
  });

  it('caps a long body', () => {
    const entries = Array.from({ length: 30 }, (_, i) => ({ ts: 't', op: 'stamp', pages: [`p${i}`] }));
    const lines = commitMessage(entries, []).trim().split('\n');
    assert.equal(lines.length, 2 + 21);
    assert.equal(lines.at(-1), '- … and 10 more');
  });
});
