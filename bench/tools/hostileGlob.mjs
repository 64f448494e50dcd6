// grep_code with the glob of issue 36 (`*?` twelve times, then `:`), which globMatcher's old
// backtracking RegExp took minutes on (synchronously, stalling every other call), against
// ordinary grep_code calls over the same files in the same run: paired runs in rotating order,
// each ratio the median of the runs' ratios. Goal: the hostile glob costs at most 1.5x a glob of
// the same kind (one rg cannot narrow by, so also matched here, `*:`), and answers within 5 s.
import { ms, sized, stats, verdict } from '../lib.mjs';

export const HOSTILE_GLOB = `${'*?'.repeat(12)}:`;
const GOALS = { ratio: 1.5, ceilingMs: 5000 };

async function timed(fn) {
  const t = performance.now();
  const result = await fn();
  return { ms: performance.now() - t, result };
}

/** Prints the figures; `grepCode` is the grep_code WikiTool over the workspace, `pattern` one that matches many lines there. */
export async function compareHostileGlob(grepCode, pattern, { runs = sized(11, 2), label = '' } = {}) {
  const calls = [
    { name: `grep_code /${pattern}/`, input: { pattern } },
    { name: `grep_code /${pattern}/ glob "*:"`, input: { pattern, glob: '*:' } },
    { name: `grep_code /${pattern}/ glob "${HOSTILE_GLOB}"`, input: { pattern, glob: HOSTILE_GLOB } },
  ];
  const times = calls.map(() => []);
  const summaries = [];
  for (const [i, call] of calls.entries()) {
    const { result } = await timed(() => grepCode.run(call.input)); // warm: rg's files in the page cache
    if (!result.ok) throw new Error(`${call.name} failed: ${result.text}`);
    summaries[i] = result.summary;
  }
  for (let run = 0; run < runs; run++) {
    for (let k = 0; k < calls.length; k++) {
      const i = (run + k) % calls.length;
      times[i].push((await timed(() => grepCode.run(calls[i].input))).ms);
    }
  }
  console.log(`grep_code with the hostile glob of issue 36 against ordinary calls${label} (${runs} runs each, rotating order)`);
  for (const [i, call] of calls.entries()) {
    const s = stats(times[i]);
    console.log(`  ${call.name.padEnd(52)} p50 ${ms(s.p50).padStart(10)}   max ${ms(s.max).padStart(10)}   [${summaries[i]}]`);
  }
  const ratio = (a, b) => stats(times[a].map((value, run) => value / times[b][run])).p50;
  const [againstOrdinary, againstSameKind] = [ratio(2, 0), ratio(2, 1)];
  const worst = stats(times[2]).max;
  console.log(`  hostile glob: ${againstOrdinary.toFixed(2)}x the call without a glob, ${againstSameKind.toFixed(2)}x the "*:" glob; slowest ${ms(worst)}`);
  console.log(`  goal: ≤ ${GOALS.ratio}x the "*:" glob and every call < ${GOALS.ceilingMs / 1000} s: ${verdict(againstSameKind <= GOALS.ratio && worst < GOALS.ceilingMs)}`);
}
