import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbenchSession, screenshotFailures, type WorkbenchSession } from './workbenchSession';

const ROOT = path.resolve(__dirname, '../../..');
const harness = (name: string) => require(path.join(ROOT, 'test', 'harness', name));
const { prepareWorkspace } = harness('ext-tests.cjs');
const { runCommand, screenshot } = harness('browser.cjs');

describe('Page authoring in a real VS Code workbench (installed from the .vsix)', function () {
  this.timeout(240000);
  let session: WorkbenchSession;
  let page: Page;
  let workspace: string;

  before(async () => {
    workspace = prepareWorkspace(path.join(ROOT, 'demo'));
    session = await openWorkbenchSession(workspace);
    page = session.page;
  });

  screenshotFailures(() => page, 'failed-authoring');

  after(async () => {
    await session?.stop();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('"Go to wiki page…" finds a page by a word of its summary and opens it', async () => {
    const opened = page.locator('.tab.active', { hasText: 'router-trailing-slashes.md' });
    // On a loaded machine Enter can land while the pick is still filling in: then pick again.
    for (let attempt = 1; !(await opened.isVisible()); attempt++) {
      assert.ok(attempt <= 3, '"Go to wiki page…" did not open the page');
      if (attempt > 1) await page.keyboard.press('Escape');
      await runCommand(page, 'Repo Wiki: Go to wiki page…');
      const pick = page.locator('.quick-input-widget', { hasText: 'Go to wiki page' });
      await pick.waitFor({ timeout: 30000 });
      await page.keyboard.type('trailing');
      await pick.locator('.monaco-list-row.focused', { hasText: 'Trailing slashes break routes' }).first().waitFor({ timeout: 30000 });
      await page.keyboard.press('Enter');
      await opened.waitFor({ timeout: 20000 }).then(() => undefined, () => undefined); // checked by the loop
    }
  });

  it('completes [[ with page titles and summaries', async () => {
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('See [[midd', { delay: 50 });
    // middleware-conventions is titled "Writing middleware": the slug matches, the title is shown.
    const suggestion = page.locator('.suggest-widget .monaco-list-row', { hasText: 'Writing middleware' });
    await suggestion.first().waitFor({ timeout: 30000 });
    await screenshot(page, 'authoring-link-completion');
    await page.keyboard.press('Enter');
    await page.locator('.view-line', { hasText: 'See [[middleware-conventions]]' }).waitFor({ timeout: 10000 });
  });

  it('shows the cited code and its drift state in a hover on a citation', async () => {
    const citation = page.locator('.view-line span span', { hasText: /^src\/router\.ts:splitPath$/ }).first();
    await citation.waitFor({ timeout: 10000 });
    const hover = page.locator('.monaco-hover', { hasText: 'export function splitPath' });
    for (let attempt = 1; !(await hover.isVisible()); attempt++) {
      assert.ok(attempt <= 5, 'the citation hover did not show');
      await page.mouse.move(0, 0);
      await citation.hover();
      await hover.waitFor({ timeout: 5000 }).then(() => undefined, () => page.mouse.move(0, 0)); // not yet: hover again
    }
    await screenshot(page, 'authoring-citation-hover');
    await page.keyboard.press('Escape');
  });

  it('lists the pages linking to the active page in the Backlinks view', async () => {
    const header = page.locator('.pane-header', { hasText: /^Backlinks/i });
    const icon = page.locator('.part.activitybar .action-item a[aria-label^="Repo Wiki"]');
    for (let attempt = 1; !(await header.isVisible()); attempt++) {
      assert.ok(attempt <= 4, 'the Repo Wiki view did not open');
      await icon.click();
      await page.waitForTimeout(1000);
    }
    if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
    await page.locator('.monaco-list-row', { hasText: 'Request pipeline' }).first().waitFor({ timeout: 30000 });
    await page.locator('.monaco-list-row', { hasText: /\[\[router-trailing-slashes\]\].*line \d+/ }).first().waitFor({ timeout: 30000 });
    await screenshot(page, 'authoring-backlinks');
  });
});
