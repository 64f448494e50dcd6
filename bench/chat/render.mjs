// Rendering overhead of the chat view: from an SSE delta leaving the mock Messages API to its text
// in the webview's DOM, through the real SDK, extension host and webview in a real VS Code.
// The first delta of each turn is reported apart: it also carries the request's start.
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ms, sized, smoke, stats, verdict } from '../lib.mjs';

const require = createRequire(import.meta.url);
const ROOT = resolve(import.meta.dirname, '..', '..');
const harness = (name) => require(join(ROOT, 'test', 'harness', name));
const { ensureRuntime, serverMain } = harness('runtime.cjs');
const { startServer, installVsix } = harness('server.cjs');
const { prepareWorkspace } = harness('ext-tests.cjs');
const { launchBrowser, openWorkbench, webviewFrame } = harness('browser.cjs');
const { startMockAnthropic } = harness('mockAnthropic.cjs');

const KEY = 'sk-ant-bench-render';
const TURNS = sized(3, 1);
const DELTAS = sized(40, 5);
const GAP_MS = 60;

// A smoke run installs nothing: it renders where the VS Code server is already installed, and says so where not.
if (smoke && !existsSync(serverMain())) {
  console.log('chat rendering overhead: not measured: the VS Code server is not installed (the e2e stage installs it: node test/run-all.mjs --only e2e)');
  process.exit(0);
}
await ensureRuntime();
const mock = await startMockAnthropic({ validKey: KEY });
const workspace = prepareWorkspace(join(ROOT, 'demo'));
const extensionsDir = mkdtempSync(join(tmpdir(), 'repo-wiki-bench-ext-'));
await installVsix(join(ROOT, 'dist-vsix', 'repo-wiki.vsix'), extensionsDir);
const server = await startServer({ folder: workspace, extensionsDir, env: { ANTHROPIC_API_KEY: KEY }, settings: { 'repoWiki.llm.baseUrl': mock.url } });
const browser = await launchBrowser();
try {
  const page = await openWorkbench(browser, server.workbenchUrl(workspace));
  await page.locator('.part.activitybar .action-item a[aria-label^="Repo Wiki"]').click();
  const chat = webviewFrame(page);
  await chat.locator('#question').waitFor({ timeout: 60000 });
  let frame;
  for (const f of page.frames()) if (await f.$('#messages').catch(() => null)) frame = f;
  if (!frame) throw new Error('the chat webview frame was not found');

  // Record when each marker first appears in the DOM, with the wall clock the mock also uses.
  await frame.evaluate(() => {
    window.__seen = {};
    new MutationObserver(() => {
      const text = document.querySelector('#messages')?.textContent ?? '';
      for (const match of text.matchAll(/mk(\d+)x/g)) window.__seen[match[1]] ??= Date.now();
    }).observe(document.querySelector('#messages'), { subtree: true, childList: true, characterData: true });
  });

  const steady = [];
  const first = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const sent = {};
    const chunks = Array.from({ length: DELTAS }, (_, i) => `mk${turn * 1000 + i}x ${'lorem ipsum '.repeat(3)}`);
    mock.script({ chunks, delayMs: GAP_MS, onChunk: (i) => (sent[turn * 1000 + i] = Date.now()) });
    await chat.locator('#question').fill(`Render benchmark question ${turn}`);
    await chat.locator('button#send:not([disabled])').click();
    const last = String(turn * 1000 + DELTAS - 1);
    await frame.waitForFunction((id) => window.__seen[id] !== undefined, last, { timeout: 60000 }).catch(async (error) => {
      await page.screenshot({ path: join(ROOT, 'test-output', 'bench-render-failed.png') });
      throw error;
    });
    const seen = await frame.evaluate(() => window.__seen);
    for (const [id, at] of Object.entries(sent)) {
      if (!seen[id]) throw new Error(`delta ${id} never reached the DOM`);
      (Number(id) % 1000 === 0 ? first : steady).push(seen[id] - at);
    }
  }
  const s = stats(steady);
  const f = stats(first);
  console.log(`chat rendering overhead: SSE delta at the mock -> its text in the webview DOM (${TURNS} turns x ${DELTAS} deltas, ${GAP_MS} ms apart; real SDK, extension host, webview)`);
  console.log(`  first delta of a turn (includes the request starting)   p50 ${ms(f.p50)}  max ${ms(f.max)}`);
  console.log(`  each following delta                                    p50 ${ms(s.p50)}  p95 ${ms(s.p95)}  max ${ms(s.max)}`);
  console.log(`  goal p95 < 50 ms: ${verdict(s.p95 < 50)}`);
} finally {
  await browser.close();
  await server.stop();
  await mock.close();
  rmSync(workspace, { recursive: true, force: true });
  rmSync(extensionsDir, { recursive: true, force: true });
}
