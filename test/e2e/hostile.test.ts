import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';

// A person opens a hostile clone (test/harness/hostileRepo.cjs) in a real workbench: the window
// loads, and the Problems panel names each bad file and why, in words a person can act on.
const ROOT = path.resolve(__dirname, '../../..');
const harness = (name: string) => require(path.join(ROOT, 'test', 'harness', name));
const { ensureRuntime } = harness('runtime.cjs');
const { startServer, installVsix } = harness('server.cjs');
const { prepareWorkspace } = harness('ext-tests.cjs');
const { launchBrowser, openWorkbench, runCommand, screenshot } = harness('browser.cjs');
const { makeHostileRepo, snapshotOutside } = harness('hostileRepo.cjs');

describe('A hostile clone in a real VS Code workbench (installed from the .vsix)', function () {
  this.timeout(180000);
  let server: { workbenchUrl(folder: string): string; stop(): Promise<void> };
  let browser: Browser;
  let page: Page;
  let workspace: string;
  let outside: string;
  let extensionsDir: string;
  let outsideBefore: unknown;

  before(async () => {
    const vsix = process.env.REPO_WIKI_VSIX ?? path.join(ROOT, 'dist-vsix', 'repo-wiki.vsix');
    assert.ok(fs.existsSync(vsix), `${vsix} exists (run npm run package)`);
    await ensureRuntime();
    workspace = prepareWorkspace(path.join(ROOT, 'demo'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-e2e-outside-'));
    makeHostileRepo(workspace, { outside });
    outsideBefore = snapshotOutside(outside);
    extensionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-ext-'));
    await installVsix(vsix, extensionsDir);
    server = await startServer({ folder: workspace, extensionsDir });
    browser = await launchBrowser();
    page = await openWorkbench(browser, server.workbenchUrl(workspace));
    await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) await screenshot(page, `failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    for (const dir of [workspace, outside, extensionsDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lints the clone and shows each bad page and cited file in the Problems panel, saying why', async () => {
    await runCommand(page, 'Repo Wiki: Lint wiki');
    const toast = page.locator('.notification-toast', { hasText: /Repo Wiki: \d+ lint issues? in \d+ pages/ });
    await toast.waitFor({ timeout: 30000 });
    await toast.getByRole('button', { name: 'Show Problems' }).click();
    // Room for every row: the list only renders the rows in view.
    await runCommand(page, 'View: Toggle Maximized Panel');
    const problems = page.locator('.markers-panel');
    for (const text of [
      'fifo-page.md is a FIFO (named pipe), not a regular file',
      'passwd-link.md is, or lies inside, a symbolic link that leads out of .wiki',
      'only its first 32 KB are sent to the model',
      'src/fifo.ts is a FIFO (named pipe), not a regular file',
      'src/huge.ts is 3.0 GB, over the 16.0 MB Repo Wiki reads',
      'src/outside.ts is, or lies inside, a symbolic link that leads out of the workspace folder',
    ]) {
      await problems.getByText(text).first().waitFor({ timeout: 30000 });
    }
    await screenshot(page, 'hostile-problems-panel');
    assert.deepEqual(snapshotOutside(outside), outsideBefore, 'nothing outside the workspace changed');
  });
});
