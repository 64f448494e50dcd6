// The wiki graph's first render at 2,000 pages (goal < 1.5 s): the graph data built in the core
// from parsed pages, the message to the webview, then the real dist/graph.js (force-graph) in
// headless Chromium from the data arriving to its first frame on the canvas. Also the longest
// main-thread task while the layout settles (the view must not freeze) and the time it takes to settle.
// Needs `npm run build` (dist/) and out/ (compiled by npm run bench) first.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ms, seededText, sized, stats, verdict } from '../lib.mjs';

const require = createRequire(import.meta.url);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { parsePage } = require(join(repo, 'out/src/core/pages/page.js'));
const { buildWikiGraph } = require(join(repo, 'out/src/core/authoring/index.js'));
const { launchBrowser } = require(join(repo, 'test/harness/browser.cjs'));
const { ensureAptPackages } = require(join(repo, 'test/harness/runtime.cjs'));

const PAGES = sized(2000, 100);
const SCREENSHOT = join(repo, 'test-output', `bench-graph-${PAGES}.png`);
const SETTLE_MS = sized(6000, 1000);
const GOAL_MS = 1500;
const TOPICS = ['architecture', 'patterns', 'gotchas', 'testing', 'dependencies', 'decisions', 'conversations', 'other'];
const { random, pick, sentence } = seededText(['pipeline', 'router', 'cache', 'retry', 'session', 'index', 'drift', 'worker']);
const slugs = Array.from({ length: PAGES }, (_, i) => `page-${i}-${pick(['pipeline', 'router', 'cache', 'retry', 'session'])}`);
// About three links a page, mostly to pages of the same topic, as a real wiki clusters.
const texts = slugs.map((slug, i) => {
  const links = Array.from({ length: 3 }, () => `[[${slugs[random() < 0.7 ? (i + 8 * Math.ceil(random() * 20)) % PAGES : Math.floor(random() * PAGES)]}]]`).join(', ');
  const status = random() < 0.1 ? 'stale' : random() < 0.05 ? 'superseded' : 'active';
  return `---\ntitle: "Page ${i} about ${pick(['requests', 'caching', 'routing', 'retries'])}"\ntopic: ${TOPICS[i % TOPICS.length]}\nsummary: "${sentence()}"\nstatus: ${status}\ntags: []\ncreated: 2026-11-01\nupdated: 2026-11-02\n---\n# Page ${i}\n\n${sentence()} See ${links}.\n`;
});
const pages = slugs.map((slug, i) => parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(texts[i])));

// ---- graph data in the core: a new page array each run, as after every change ----
const builds = [];
let graph;
for (let run = 0; run < sized(30, 2); run++) {
  const started = performance.now();
  graph = buildWikiGraph([...pages]);
  builds.push(performance.now() - started);
}
const build = stats(builds);
const serialiseStarted = performance.now();
const message = JSON.stringify({ type: 'graph', graph, wikiName: 'bench' });
const serialise = performance.now() - serialiseStarted;

// ---- first render in the webview bundle, in headless Chromium ----
mkdirSync(dirname(SCREENSHOT), { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'repo-wiki-bench-graph-'));
// npm test's bench:smoke runs this before its runtime step installs the browser: on a fresh machine, it is not there yet.
ensureAptPackages(console.log, ['chromium']);
const browser = await launchBrowser();
try {
  // The webview's page without VS Code around it: the same script and stylesheet, a stand-in for acquireVsCodeApi.
  writeFileSync(join(dir, 'graph.html'), `<!DOCTYPE html><html><head><meta charset="UTF-8">
<link href="${pathToFileURL(join(repo, 'media/graph.css'))}" rel="stylesheet">
<style>html, body { width: 1200px; height: 800px; }</style>
<script>
window.posted = [];
window.acquireVsCodeApi = () => ({ postMessage: (message) => window.posted.push({ ...message, at: performance.now() }) });
window.tasks = [];
new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.tasks.push({ start: entry.startTime, duration: entry.duration }); }).observe({ entryTypes: ['longtask'] });
</script></head><body>
<script src="${pathToFileURL(join(repo, 'dist/graph.js'))}"></script>
</body></html>`);
  const firstFrames = [];
  const longest = [];
  const stalls = [];
  for (let run = 0; run < sized(5, 1); run++) {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(pathToFileURL(join(dir, 'graph.html')).href);
    await page.waitForFunction(() => window.posted.some((m) => m.type === 'ready'));
    // From the host's side: the message arriving (structured clone included) to the first frame drawn.
    const ms = await page.evaluate(async (text) => {
      const data = JSON.parse(text);
      const sent = performance.now();
      window.tasks = [];
      window.postMessage(data, '*');
      for (;;) {
        const rendered = window.posted.find((m) => m.type === 'rendered');
        if (rendered) return rendered.at - sent;
        await new Promise((r) => setTimeout(r, 5));
      }
    }, message);
    firstFrames.push(ms);
    // The layout runs on for a few seconds (its cooldown): the longest task meanwhile.
    await page.waitForTimeout(SETTLE_MS);
    // Tasks that began after the first frame: the layout running on its own (the first frame's work is counted above).
    const after = await page.evaluate(() => {
      const drawn = window.posted.find((m) => m.type === 'rendered').at;
      return window.tasks.filter((task) => task.start >= drawn).map((task) => task.duration);
    });
    longest.push(Math.max(0, ...after));
    stalls.push(after.length);
    if (run === 0) await page.screenshot({ path: SCREENSHOT });
    await page.close();
  }
  const first = stats(firstFrames);
  const total = build.p50 + serialise + first.p50;
  console.log(`Wiki graph on ${PAGES} pages (${graph.edges.length} links, ${graph.topics.length} topics)`);
  console.log(`  graph data in the core          p50 ${ms(build.p50).padStart(10)}  p95 ${ms(build.p95).padStart(10)}`);
  console.log(`  message to the webview           ${ms(serialise).padStart(10)}  (${(message.length / 1024).toFixed(0)} KB of JSON)`);
  console.log(`  first frame in the webview      p50 ${ms(first.p50).padStart(10)}  max ${ms(first.max).padStart(10)}  (${firstFrames.length} runs, headless Chromium)`);
  console.log(`  first render, data + message + frame  ${ms(total)}  (goal < ${GOAL_MS} ms: ${verdict(total < GOAL_MS)})`);
  console.log(`  longest main-thread task after the first frame, while the layout settles  max ${ms(Math.max(...longest))}  (over 50 ms is a visible stall; ${Math.max(...stalls)} such tasks at most in a run)`);
  console.log(`  the first run's view after ${SETTLE_MS / 1000} s: ${SCREENSHOT}`);
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
