// Files nested deeper than a parser's call stack (issue 36: 1,000 nested parentheses in TypeScript,
// 5,000 nested `#if` in C stopped the whole drift run; 10,000 parentheses here overflow whatever
// stack is already in use) against ordinary files of the same size, in
// the same run: read_code of a declaration, and a drift check of a page citing it, each through a
// fresh local core (so every file is read and parsed). Paired runs in rotating order; each ratio is
// the median of the runs' ratios. Goal: a deep file costs at most 3x an ordinary one, and every
// call answers within 5 s (the deep TypeScript file with a clear refusal, the deep C file parsed).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ms, sized, stats, verdict } from '../lib.mjs';

const require = createRequire(import.meta.url);
const GOALS = { ratio: 3, ceilingMs: 5000 };

const FILES = {
  'deep.ts': `export function f() { return ${'('.repeat(10000)}1${')'.repeat(10000)}; }\n`,
  'flat.ts': `export function f() { return ${'1+'.repeat(9999)}1; }\n`,
  'deep.c': `${'#if A\n'.repeat(5000)}int f(void) { return 1; }\n${'#endif\n'.repeat(5000)}`,
  'flat.c': `${'#if A\n#endif\n'.repeat(5000)}int f(void) { return 1; }\n`,
};

async function timed(fn) {
  const t = performance.now();
  const result = await fn();
  return { ms: performance.now() - t, result };
}

/** Prints the figures; the workspace is made and removed here. */
export async function compareDeepFiles({ runs = sized(11, 2) } = {}) {
  const { openLocalCore } = require('../../out/src/adapters/localCore.js');
  const root = mkdtempSync(join(tmpdir(), 'repo-wiki-deep-bench-'));
  try {
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, '.wiki', 'pages'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: root });
    for (const [name, text] of Object.entries(FILES)) {
      writeFileSync(join(root, 'src', name), text);
      writeFileSync(join(root, '.wiki', 'pages', `${name.replace('.', '-')}.md`), `---\ntitle: ${name}\nsummary: Cites ${name}.\n---\n# ${name}\n\n\`src/${name}:f\`\n`);
    }
    const calls = Object.keys(FILES).flatMap((name) => [
      { name: `read_code src/${name}:f`, run: (core) => core.tools().find((tool) => tool.name === 'read_code').run({ citation: `src/${name}:f` }), summary: (r) => r.summary },
      { name: `drift check, page citing src/${name}:f`, run: (core) => core.drift.check({ slugs: [name.replace('.', '-')] }), summary: (r) => r.issues.map((issue) => issue.code).join(', ') || 'no issue' },
    ]);
    const times = calls.map(() => []);
    const summaries = [];
    for (let run = 0; run < runs; run++) {
      for (let k = 0; k < calls.length; k++) {
        const i = (run + k) % calls.length;
        const { ms: took, result } = await timed(() => calls[i].run(openLocalCore(root)));
        times[i].push(took);
        summaries[i] = calls[i].summary(result);
      }
    }
    console.log(`files nested too deeply against ordinary files of the same size (${runs} runs each, rotating order, a fresh core per call)`);
    for (const [i, call] of calls.entries()) {
      const s = stats(times[i]);
      console.log(`  ${call.name.padEnd(40)} p50 ${ms(s.p50).padStart(10)}   max ${ms(s.max).padStart(10)}   [${summaries[i]}]`);
    }
    const ratio = (a, b) => stats(times[a].map((value, run) => value / times[b][run])).p50;
    const pairs = [['read_code', 0, 2], ['drift check', 1, 3]].flatMap(([what, deep, flat]) => [[`TS ${what}`, deep, flat], [`C ${what}`, deep + 4, flat + 4]]);
    const ratios = pairs.map(([label, deep, flat]) => [label, ratio(deep, flat)]);
    const worst = Math.max(...times.map((samples) => stats(samples).max));
    console.log(`  deep against flat: ${ratios.map(([label, value]) => `${label} ${value.toFixed(2)}x`).join(', ')}; slowest call ${ms(worst)}`);
    console.log(`  goal: ≤ ${GOALS.ratio}x an ordinary file and every call < ${GOALS.ceilingMs / 1000} s: ${verdict(ratios.every(([, value]) => value <= GOALS.ratio) && worst < GOALS.ceilingMs)}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
