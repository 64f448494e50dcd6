// Stands in for the extension host: `node host.mjs '<json>'` with { root, targetsFile, workerScript, iterations }.
// Runs a full scan through the real DriftClient and the bundled worker (dist/driftWorker.js) while
// sampling this main thread's event-loop delay, then the warm path as the extension drives it after
// a save: one `sourcesChanged` request naming the citing pages from the host's own page list, which
// forgets the file and re-checks those pages' citations into it. Prints one JSON line.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { out } from './code.mjs';
import { citingSlugs, edited, loadTargets } from './edits.mjs';

const { root, targetsFile, workerScript, iterations } = JSON.parse(process.argv[2]);
const { DriftClient } = out('adapters/drift/driftClient');
const { Wiki } = out('core/wiki/wiki');
const { WorkspaceFiles } = out('adapters/files/workspaceFiles');
const { pagesCiting } = out('core/drift/citations');

// Two independent views of main-thread stalls: Node's histogram (1 ms resolution) and the largest
// gap between ticks of a 1 ms interval timer (which also sees stalls the histogram folds away).
const histogram = monitorEventLoopDelay({ resolution: 1 });
let last = performance.now();
let maxGap = 0;
const ticker = setInterval(() => {
  const now = performance.now();
  maxGap = Math.max(maxGap, now - last);
  last = now;
}, 1);

// The client unrefs its worker (the real extension host stays alive by itself); so must this one.
const keepAlive = setInterval(() => undefined, 60_000);
const client = new DriftClient(workerScript);
histogram.enable();
last = performance.now();
const start = performance.now();
const report = await client.request({ kind: 'check', root });
const scanMs = performance.now() - start;
histogram.disable();
clearInterval(ticker);
if (report.issues.length) throw new Error(`host: the full scan found ${report.issues.length} issues`);

// Warm path, the extension's way: the host names the citing pages (DriftService.sourcesChanged), the worker reads and re-checks only those.
const pages = await new Wiki(root, new WorkspaceFiles(root), { now: () => new Date() }).loadPages();
const citing = citingSlugs(pages);
const targets = loadTargets(root, JSON.parse(readFileSync(targetsFile, 'utf8')));
const samples = [];
for (let n = 0; n < iterations; n++) {
  const target = targets[n % targets.length];
  writeFileSync(join(root, target.file), edited(target, n));
  const t = performance.now();
  const named = pagesCiting(pages, new Set([target.file])).map((page) => page.slug);
  const warm = await client.request({ kind: 'sourcesChanged', root, paths: [target.file], listChanged: false, citing: named });
  samples.push(performance.now() - t);
  if (!warm.issues.length || warm.issues.some((i) => i.data.path !== target.file)) throw new Error(`host: unexpected issues after editing ${target.file}`);
  if (warm.pages.length !== citing.get(target.file).size) throw new Error(`host: ${warm.pages.length} pages re-checked after editing ${target.file}, ${citing.get(target.file).size} cite it`);
  // Undo the edit (untimed), so each iteration changes exactly one file against clean pages.
  writeFileSync(join(root, target.file), target.text);
  await client.request({ kind: 'sourcesChanged', root, paths: [target.file], listChanged: false, citing: named });
}
client.dispose();
clearInterval(keepAlive);

process.stdout.write(`${JSON.stringify({
  scanMs,
  citationsChecked: report.citationsChecked,
  stallMaxMs: histogram.max / 1e6,
  stallP99Ms: histogram.percentile(99) / 1e6,
  gapMaxMs: maxGap,
  samples,
  peakRssMB: process.resourceUsage().maxRSS / 1024,
})}\n`);
