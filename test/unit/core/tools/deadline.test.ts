import * as assert from 'node:assert/strict';
import type { CodeSearch, GrepOptions, GrepResult } from '../../../../src/core/tools/codeSearch';
import { grepCodeTool } from '../../../../src/core/tools/grepCode';

/** A search that answers only when its signal aborts (as ripgrep, killed, does), or after `answerAfterMs`. */
function slowSearch(answerAfterMs = Infinity) {
  const seen: { signal?: AbortSignal; abortedAt?: number } = {};
  const search: CodeSearch = {
    grep(_pattern: string, { signal }: GrepOptions): Promise<GrepResult> {
      seen.signal = signal;
      return new Promise((resolve, reject) => {
        const timer = answerAfterMs === Infinity ? undefined : setTimeout(() => resolve({ matches: [{ path: 'src/a.ts', line: 1, text: 'found' }], truncated: false, timedOut: false }), answerAfterMs);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          seen.abortedAt = performance.now();
          reject(signal.reason);
        });
      });
    },
    filesContaining: () => Promise.reject(new Error('not used')),
  };
  return { search, seen };
}

describe('tool deadline', () => {
  it('answers a call that runs past its deadline with a timed-out failure saying what to narrow, and aborts its work', async () => {
    const { search, seen } = slowSearch();
    const tool = grepCodeTool({ search, deadlineMs: 100 });
    const started = performance.now();
    const result = await tool.run({ pattern: 'import', glob: '*.ts' });
    const elapsed = performance.now() - started;
    assert.equal(result.ok, false);
    assert.equal(result.summary, 'timed out');
    assert.match(result.text, /^grep_code timed out after 100 ms and was stopped\. .*more specific pattern.*glob/);
    assert.ok(elapsed >= 95, `answered after ${elapsed.toFixed(0)} ms, before the deadline`);
    assert.ok(elapsed < 1000, `answered after ${elapsed.toFixed(0)} ms`); // a ceiling, not a typical time
    assert.equal(seen.signal?.aborted, true, 'the search was told to stop');
    assert.equal((seen.signal?.reason as Error).name, 'TimeoutError');
    assert.ok(seen.abortedAt! - started < 1000);
  });

  it('answers a call that ends before its deadline as usual, and aborts nothing', async () => {
    const { search, seen } = slowSearch(10);
    const result = await grepCodeTool({ search, deadlineMs: 2000 }).run({ pattern: 'found' });
    assert.deepEqual([result.ok, result.summary], [true, '1 match in 1 file']);
    assert.equal(seen.signal?.aborted, false);
  });

  it("rejects at once when the caller cancels, with the caller's reason, and aborts the work", async () => {
    const { search, seen } = slowSearch();
    const caller = new AbortController();
    const running = grepCodeTool({ search, deadlineMs: 5000 }).run({ pattern: 'import' }, caller.signal);
    setTimeout(() => caller.abort(new Error('stopped by the user')), 20);
    const started = performance.now();
    await assert.rejects(running, /stopped by the user/);
    assert.ok(performance.now() - started < 1000);
    assert.equal(seen.signal?.aborted, true);
  });

  it('answers at the deadline even when the work ignores its signal', async () => {
    const search: CodeSearch = { grep: () => new Promise(() => undefined), filesContaining: () => new Promise(() => undefined) };
    const started = performance.now();
    const result = await grepCodeTool({ search, deadlineMs: 50 }).run({ pattern: 'import' });
    assert.equal(result.summary, 'timed out');
    assert.ok(performance.now() - started < 1000);
  });

  it('answers a glob over the length cap with a clear error result, before searching', async () => {
    const { search, seen } = slowSearch();
    const result = await grepCodeTool({ search }).run({ pattern: 'import', glob: '*?'.repeat(101) });
    assert.deepEqual([result.ok, result.summary], [false, 'invalid input']);
    assert.match(result.text, /glob: expected a glob of at most 200 characters/);
    assert.equal(seen.signal, undefined, 'no search ran');
  });
});
