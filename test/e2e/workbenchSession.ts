import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';

const ROOT = path.resolve(__dirname, '../../..');
const harness = (name: string) => require(path.join(ROOT, 'test', 'harness', name));

export interface WorkbenchSession {
  readonly page: Page;
  /** Closes the browser and the server, and removes the extensions folder. */
  stop(): Promise<void>;
}

/**
 * The packaged .vsix installed into a fresh extensions folder, a VS Code server on `folder`, and
 * its workbench open in headless Chromium with the Explorer loaded.
 */
export async function openWorkbenchSession(folder: string, options: { env?: Record<string, string>; settings?: Record<string, unknown> } = {}): Promise<WorkbenchSession> {
  const vsix = process.env.REPO_WIKI_VSIX ?? path.join(ROOT, 'dist-vsix', 'repo-wiki.vsix');
  assert.ok(fs.existsSync(vsix), `${vsix} exists (run npm run package)`);
  await harness('runtime.cjs').ensureRuntime();
  const { startServer, installVsix } = harness('server.cjs');
  const { launchBrowser, openWorkbench } = harness('browser.cjs');
  const extensionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-ext-'));
  await installVsix(vsix, extensionsDir);
  const server: { workbenchUrl(folder: string): string; stop(): Promise<void> } = await startServer({ folder, extensionsDir, ...options });
  const browser: Browser = await launchBrowser();
  const page: Page = await openWorkbench(browser, server.workbenchUrl(folder));
  await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
  return {
    page,
    stop: async () => {
      await browser.close();
      await server.stop();
      fs.rmSync(extensionsDir, { recursive: true, force: true });
    },
  };
}

/** A screenshot of the workbench whenever a test of the suite fails, named after the test. */
export function screenshotFailures(page: () => Page | undefined, prefix = 'failed'): void {
  afterEach(async function () {
    const current = page();
    if (this.currentTest?.state === 'failed' && current) {
      await harness('browser.cjs').screenshot(current, `${prefix}-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
    }
  });
}

/** Opens the Repo Wiki chat view from the activity bar and waits for its question box. */
export async function openChatView(page: Page): Promise<void> {
  const header = page.locator('.pane-header', { hasText: /^Chat/i });
  const icon = page.locator('.part.activitybar .action-item a[aria-label^="Repo Wiki"]');
  await icon.waitFor({ timeout: 30000 });
  // The icon toggles: a click while the view is still being restored hides it again, so check and retry.
  for (let attempt = 1; !(await header.isVisible()); attempt++) {
    await icon.click();
    try {
      await header.waitFor({ timeout: 5000 });
    } catch (error) {
      if (attempt === 4) throw error;
    }
  }
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  await harness('browser.cjs').webviewFrame(page).locator('#question').waitFor({ timeout: 30000 });
}
