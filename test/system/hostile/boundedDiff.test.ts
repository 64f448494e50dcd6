import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyPatch, createTwoFilesPatch } from 'diff';
import { openLocalCore } from '../../../src/adapters/localCore';
import { whatChanged } from '../../../src/core/drift/whatChanged';
import { boundedPatch, boundedPatchText, lineCount, MAX_COMPARED_BYTES } from '../../../src/core/text/boundedDiff';

/** `lines` lines of code, each different from every line of another `flavour`. */
function code(lines: number, flavour: string): string {
  return Array.from({ length: lines }, (_, i) => `  const ${flavour}${i} = compute(${i}, '${flavour}');`).join('\n') + '\n';
}

/** How long `work` takes, in milliseconds, and what it returns. */
async function timed<T>(work: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await work();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

// Time-bounded probes assert a ceiling, not a typical time: the diff gives up at 1 s, and the rest
// (splitting and writing 40,000 lines) takes a fraction of that on a loaded machine.
const CEILING_MS = 2000;

describe('bounded diffs (red-team pass, issue 36: a 20,000-line rewrite took 69 s, 40,000 lines never finished)', function () {
  this.timeout(30_000);

  it('gives what createTwoFilesPatch gives while the diff is small', () => {
    const before = code(50, 'a');
    const after = before.replace("compute(7, 'a')", "compute(7, 'b')").replace("compute(30, 'a');\n", '');
    const expected = createTwoFilesPatch('a/x.ts', 'b/x.ts', before, after, 'at abc123', 'now', { context: 2 });
    assert.deepEqual(boundedPatch('a/x.ts', 'b/x.ts', before, after, 'at abc123', 'now', { context: 2 }), { patch: expected });
    assert.equal(boundedPatchText('a/x.ts', 'b/x.ts', before, after, 'at abc123', 'now'), createTwoFilesPatch('a/x.ts', 'b/x.ts', before, after, 'at abc123', 'now'));
  });

  for (const lines of [20_000, 40_000]) {
    it(`answers a ${lines.toLocaleString('en')}-line rewrite in under ${CEILING_MS / 1000} s: "changed throughout", and a patch that still holds the whole old text`, async () => {
      const before = code(lines, 'old');
      const after = code(lines, 'new');
      const { ms, value } = await timed(() => boundedPatch('a/big.ts', 'b/big.ts', before, after, 'at abc123', 'now'));
      assert.ok(ms < CEILING_MS, `took ${Math.round(ms)} ms`);
      assert.deepEqual(value.throughout, { before: lines, after: lines });
      assert.ok(value.patch.startsWith(`===================================================================\n--- a/big.ts\tat abc123\n+++ b/big.ts\tnow\n@@ -1,${lines} +1,${lines} @@\n-  const old0 = `));
      if (lines === 20_000) assert.equal(applyPatch(before, value.patch), after, 'the replacement is a valid patch: every old line out, every new line in');
    });
  }

  it('counts lines as a line diff does, and keeps a missing last newline in the replacement', () => {
    assert.deepEqual([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb'), lineCount('a\n\n')], [0, 1, 1, 2, 2]);
    const before = 'one\ntwo';
    const after = 'three\nfour\n';
    const { patch, throughout } = boundedPatch('a', 'b', before, after, undefined, undefined, { maxEditLength: 1 });
    assert.deepEqual(throughout, { before: 2, after: 2 });
    assert.match(patch, /-two\n\\ No newline at end of file\n\+three/);
    assert.equal(applyPatch(before, patch), after);
  });

  describe('what changed in a cited function (drift --diff)', () => {
    let root: string;
    beforeEach(() => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-diff-'));
      fs.mkdirSync(path.join(root, '.wiki', 'pages'), { recursive: true });
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    const fn = (body: string) => `export function big(): number {\n${body}  return 0;\n}\n`;

    it('a 20,000-line function rewritten since its commit: found and told in under the ceiling', async () => {
      const then = fn(code(20_000, 'old'));
      fs.writeFileSync(path.join(root, 'big.ts'), fn(code(20_000, 'new')));
      const { engine } = openLocalCore(root);
      const change = await whatChanged(engine, async () => then, { text: 'big.ts:big', path: 'big.ts', symbol: 'big' }, 'sig:00000000 body:00000000 at:abc1234');
      assert.ok(!('unavailable' in change), JSON.stringify(change).slice(0, 200));
      // What the CLI's citationDiffs does with it (parsing the two versions, above, is drift's own cost: 1.1 s without --diff).
      const { ms, value } = await timed(() => boundedPatchText(`a/${change.path}`, `b/${change.path}`, `${change.before}\n`, `${change.after}\n`, `at ${change.commit}`, 'now'));
      assert.ok(ms < CEILING_MS, `took ${Math.round(ms)} ms`);
      assert.match(value, /^changed throughout; 20003 lines before, 20003 now/);
    });

    it('does not compare a version larger than the cap: it says so, rather than "not in this clone"', async () => {
      fs.writeFileSync(path.join(root, 'data.txt'), 'small now\n');
      const { engine } = openLocalCore(root);
      const huge = 'x'.repeat(MAX_COMPARED_BYTES + 1);
      for (const fileAt of [async () => huge, async () => ({ tooLarge: 707 * 1024 * 1024 })]) {
        const change = await whatChanged(engine, fileAt, { text: 'data.txt', path: 'data.txt' }, 'file:00000000 at:abc1234');
        assert.deepEqual(change, { unavailable: 'The version of data.txt at abc1234 is larger than 16 MB, so it is not compared. Review the code and mark the citation as reviewed.' });
      }
    });
  });
});
