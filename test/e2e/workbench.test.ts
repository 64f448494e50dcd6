import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbenchSession, screenshotFailures, type WorkbenchSession } from './workbenchSession';

// The harness is plain CommonJS shared with the test runner.
const ROOT = path.resolve(__dirname, '../../..');
const harness = (name: string) => require(path.join(ROOT, 'test', 'harness', name));
const { prepareWorkspace } = harness('ext-tests.cjs');
const { runCommand, screenshot, webviewFrame } = harness('browser.cjs');

describe('Repo Wiki in a real VS Code workbench (installed from the .vsix)', function () {
  this.timeout(180000);
  let session: WorkbenchSession;
  let page: Page;
  let workspace: string;

  before(async () => {
    workspace = prepareWorkspace(path.join(ROOT, 'demo'));
    session = await openWorkbenchSession(workspace);
    page = session.page;
  });

  screenshotFailures(() => page);

  /** Opens the light bulb menu in the focused editor until it lists `title` (code actions can lag the first open of an editor). */
  async function openQuickFixes(title: string): Promise<void> {
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('Control+Period');
      try {
        await fix.waitFor({ timeout: 5000 });
        return;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  }

  /** The menu is keyboard-driven (a pointer block covers it): move to the fix, then Enter. */
  async function chooseQuickFix(title: string): Promise<void> {
    const focused = page.locator('.action-widget .monaco-list-row.focused');
    for (let i = 0; i < 10 && !((await focused.textContent()) ?? '').includes(title); i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
  }

  after(async () => {
    await session?.stop();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  const pagesView = () => page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Pages/i }) });

  it('shows the Repo Wiki activity bar and the Pages tree grouped by topic', async () => {
    await page.locator('.part.activitybar .action-item a[aria-label^="Repo Wiki"]').click();
    const rows = pagesView().locator('.monaco-list-row');
    await rows.filter({ hasText: 'Request pipeline' }).first().waitFor({ timeout: 30000 });
    for (const topic of ['Architecture', 'Patterns', 'Gotchas', 'Testing', 'Decisions']) {
      await rows.filter({ hasText: topic }).first().waitFor({ timeout: 5000 });
    }
    const stale = rows.filter({ hasText: 'stale ·' }).first();
    await stale.waitFor({ timeout: 5000 });
    assert.equal(await stale.locator('.codicon-warning').count(), 1, 'the stale page carries the warning icon');
    await screenshot(page, 'pages-tree');
  });

  it('runs "Lint wiki" from the palette and shows the broken link in the Problems panel', async () => {
    await runCommand(page, 'Repo Wiki: Lint wiki');
    const toast = page.locator('.notification-toast', { hasText: /Repo Wiki: \d+ lint issues? in \d+ pages/ });
    await toast.waitFor({ timeout: 30000 });
    await toast.getByRole('button', { name: 'Show Problems' }).click();
    const problems = page.locator('.markers-panel');
    await problems.getByText('Link [[no-such-page]] points to no page.').first().waitFor({ timeout: 30000 });
    await problems.getByText(/is stale/).first().waitFor({ timeout: 5000 });
    await screenshot(page, 'problems-panel');
  });

  it('shows drift in the status bar and the Problems panel, and "Mark as reviewed" clears it', async () => {
    const status = page.locator('.statusbar-item', { hasText: /\d+ drift/ });
    await status.filter({ hasText: '2 drift' }).waitFor({ timeout: 30000 });
    await status.click();
    const problems = page.locator('.markers-panel');
    const message = 'The signature of TodoStore.complete changed since this page was verified.';
    const row = problems.locator('.monaco-list-row', { hasText: message }).first();
    await row.waitFor({ timeout: 30000 });
    await problems.getByText('The code of TodoStore changed since this page was verified.').first().waitFor({ timeout: 5000 });
    await screenshot(page, 'drift-problems');

    await row.dblclick();
    await page.locator('.tab.active', { hasText: 'errors-become-responses-at-the-edge.md' }).waitFor({ timeout: 30000 });
    await page.locator('.editor-instance .monaco-editor.focused').waitFor({ timeout: 30000 });
    await openQuickFixes('Mark as reviewed');
    await page.locator('.action-widget .monaco-list-row', { hasText: 'Open TodoStore.complete' }).first().waitFor({ timeout: 5000 });
    await screenshot(page, 'drift-quick-fixes');
    await chooseQuickFix('Mark as reviewed');

    await status.filter({ hasText: '1 drift' }).waitFor({ timeout: 30000 });
    await problems.locator('.monaco-list-row', { hasText: message }).waitFor({ state: 'detached', timeout: 30000 });
    const pageText = fs.readFileSync(path.join(workspace, '.wiki', 'pages', 'errors-become-responses-at-the-edge.md'), 'utf8');
    assert.doesNotMatch(pageText, /"src\/todos.ts:TodoStore.complete": "sig:67e695ff/, 'the anchor was re-stamped');
    await screenshot(page, 'drift-quick-fix-applied');
  });

  it('"Show what changed" opens a diff of the reviewed code against now', async () => {
    const todos = path.join(workspace, 'src', 'todos.ts');
    const original = fs.readFileSync(todos, 'utf8');
    fs.writeFileSync(todos, original.replace('    todo.done = done;\n', '    todo.done = done;\n    todo.updated = Date.now();\n'));
    try {
      const problems = page.locator('.markers-panel');
      const row = problems.locator('.monaco-list-row', { hasText: 'The code of TodoStore.complete changed since this page was verified.' }).first();
      await row.waitFor({ timeout: 30000 });
      // A hover left open over the Problems panel would take the double-click.
      await page.mouse.move(0, 0);
      await page.keyboard.press('Escape');
      await row.dblclick();
      await page.locator('.tab.active', { hasText: 'errors-become-responses-at-the-edge.md' }).waitFor({ timeout: 30000 });
      await openQuickFixes('Show what changed');
      await chooseQuickFix('Show what changed');
      const diff = page.locator('.monaco-diff-editor');
      await diff.waitFor({ timeout: 30000 });
      await page.locator('.tab.active', { hasText: /TodoStore\.complete: at [0-9a-f]{12}/ }).waitFor({ timeout: 30000 });
      await diff.locator('.line-insert', { hasText: '' }).first().waitFor({ timeout: 30000 });
      await diff.getByText('todo.updated = Date.now();').first().waitFor({ timeout: 30000 });
      await screenshot(page, 'drift-what-changed');
      await runCommand(page, 'View: Close Editor');
    } finally {
      fs.writeFileSync(todos, original);
    }
  });

  it('creates a page with "New page" and shows it in the tree and the index', async () => {
    await runCommand(page, 'Repo Wiki: New page');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible' });
    await input.fill('Deployment checklist');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'decisions' }).first().waitFor();
    await input.fill('decisions');
    await page.keyboard.press('Enter');
    await page.locator('.tab', { hasText: 'deployment-checklist.md' }).waitFor({ timeout: 30000 });
    await pagesView().locator('.monaco-list-row', { hasText: 'Deployment checklist' }).first().waitFor({ timeout: 30000 });
    const index = JSON.parse(fs.readFileSync(path.join(workspace, '.wiki', 'index.json'), 'utf8'));
    assert.ok(index.pages.some((entry: { slug: string }) => entry.slug === 'deployment-checklist'));
    await screenshot(page, 'new-page');
  });

  it('renders the chat view under its content security policy', async () => {
    const header = page.locator('.pane-header', { hasText: /^Chat/i });
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
    const status = webviewFrame(page).locator('#status');
    await status.filter({ hasText: 'Chat with your wiki' }).waitFor({ timeout: 30000 });
    await screenshot(page, 'chat-view');
  });
});
