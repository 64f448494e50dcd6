import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { openChatView } from './workbenchSession';

const ROOT = path.resolve(__dirname, '../../..');
const harness = (name: string) => require(path.join(ROOT, 'test', 'harness', name));
const { ensureRuntime } = harness('runtime.cjs');
const { startServer, installVsix } = harness('server.cjs');
const { prepareWorkspace } = harness('ext-tests.cjs');
const { launchBrowser, openWorkbench, screenshot, webviewFrame } = harness('browser.cjs');
const { startMockAnthropic } = harness('mockAnthropic.cjs');

const API_KEY = 'sk-ant-e2e-key-123456';

// A page a teammate (or a pulled branch) wrote with hostile content; the chat must show it as text.
const HOSTILE_PAGE = `---
title: "<img src=x onerror=\\"window.__xss=1\\"> Hostile notes <script>window.__xss=2</script>"
topic: gotchas
summary: "javascript:alert(1) <b>bold</b>"
status: active
tags: [hostile]
created: 2026-11-20
updated: 2026-11-20
---
# Hostile notes

The zanzibar pipeline <script>window.__xss=3</script> and <img src=x onerror="window.__xss=4">.
[click me](javascript:window.__xss=5) and [[request-pipeline]].
`;

describe('Chat in a real VS Code workbench (installed from the .vsix)', function () {
  this.timeout(240000);
  let server: { workbenchUrl(folder: string): string; stop(): Promise<void> };
  let mock: { url: string; requests: unknown[]; script(...replies: unknown[]): void; close(): Promise<void> };
  let browser: Browser;
  let page: Page;
  let workspace: string;
  let extensionsDir: string;
  const dialogs: string[] = [];
  const chat = () => webviewFrame(page);

  before(async () => {
    const vsix = process.env.REPO_WIKI_VSIX ?? path.join(ROOT, 'dist-vsix', 'repo-wiki.vsix');
    assert.ok(fs.existsSync(vsix), `${vsix} exists (run npm run package)`);
    await ensureRuntime();
    mock = await startMockAnthropic({ validKey: API_KEY });
    workspace = prepareWorkspace(path.join(ROOT, 'demo'));
    fs.writeFileSync(path.join(workspace, '.wiki', 'pages', 'hostile-notes.md'), HOSTILE_PAGE);
    extensionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-ext-'));
    await installVsix(vsix, extensionsDir);
    server = await startServer({ folder: workspace, extensionsDir, env: { ANTHROPIC_API_KEY: API_KEY }, settings: { 'repoWiki.llm.baseUrl': mock.url } });
    browser = await launchBrowser();
    page = await openWorkbench(browser, server.workbenchUrl(workspace));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) await screenshot(page, `failed-chat-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await mock?.close();
    for (const dir of [workspace, extensionsDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const openChat = () => openChatView(page);

  /** Folds or unfolds the Pages view (by its title, not its action buttons), and waits until it has. */
  async function setPagesExpanded(expanded: boolean): Promise<void> {
    const header = page.locator('.pane-header', { hasText: /^Pages/i });
    for (let attempt = 1; (await header.getAttribute('aria-expanded')) !== String(expanded); attempt++) {
      assert.ok(attempt <= 4, `the Pages view did not ${expanded ? 'unfold' : 'fold'}`);
      await header.locator('h3.title').click();
      await page.waitForTimeout(300);
    }
  }

  /** Sends a question from the input box; returns the locator of its (new) answer. */
  async function askInView(question: string) {
    const answers = chat().locator('.message.answer');
    const before = await answers.count();
    const input = chat().locator('#question');
    await input.fill(question);
    await chat().locator('button#send:not([disabled])').click();
    const answer = answers.nth(before);
    await answer.waitFor({ timeout: 30000 });
    return answer;
  }

  it('streams an answer token by token, with the pages used and the model', async () => {
    await openChat();
    mock.script({ text: 'Requests pass through middleware first, see [[request-pipeline]] and `src/pipeline.ts:Pipeline.run`. Then the router picks a handler.', chunks: 12, delayMs: 250 });
    const answer = await askInView('How does a request flow through the app?');
    await chat().locator('button#stop').waitFor({ state: 'visible', timeout: 30000 });
    await answer.filter({ hasText: 'Requests' }).waitFor({ timeout: 30000 });
    const partial = (await answer.textContent()) ?? '';
    assert.ok(!partial.includes('picks a handler'), 'caught mid-stream');
    await screenshot(page, 'chat-streaming');
    await answer.filter({ hasText: 'picks a handler' }).waitFor({ timeout: 30000 });
    await chat().locator('.answer-footer .page-link[data-slug="request-pipeline"]').last().waitFor({ timeout: 10000 });
    assert.ok(await answer.locator('.code-link[data-citation="src/pipeline.ts:Pipeline.run"]').count(), 'the code citation is a link');
    await screenshot(page, 'chat-answer');
  });

  it('stops a stream with the Stop button and keeps what arrived', async () => {
    mock.script({ hang: true, text: 'The router matches segments' });
    const answer = await askInView('Explain the router');
    await answer.filter({ hasText: 'The rou' }).waitFor({ timeout: 30000 });
    await chat().locator('button#stop').click();
    await answer.filter({ hasText: '(stopped)' }).waitFor({ timeout: 30000 });
    await screenshot(page, 'chat-stopped');
  });

  it('renders hostile page content and model output as inert text', async () => {
    mock.script({ text: 'Look: <script>window.__xss=6</script> <img src=x onerror="window.__xss=7"> [bad](javascript:window.__xss=8) [data](data:text/html,<script>x</script>) and [[hostile-notes]].' });
    const answer = await askInView('What is the zanzibar pipeline?');
    await answer.filter({ hasText: '<script>window.__xss=6</script>' }).waitFor({ timeout: 30000 });
    await chat().locator('.answer-footer .page-link[data-slug="hostile-notes"]').last().waitFor({ timeout: 10000 });
    // Every frame, the webview's included: no sentinel set, no script element, no handler or link attribute.
    const found = await Promise.all(page.frames().map((f) => f.evaluate(() => ({
      xss: (window as unknown as { __xss?: number }).__xss,
      scripts: Array.from(document.querySelectorAll('#app script')).length,
      handlers: Array.from(document.querySelectorAll('#app *')).filter((el) => Array.from(el.attributes).some((a) => /^on/i.test(a.name) || /^(href|src)$/i.test(a.name))).length,
    })).catch(() => undefined)));
    assert.ok(found.some((r) => r !== undefined));
    for (const result of found.filter((r) => r !== undefined)) {
      assert.equal(result.xss, undefined, 'no script ran');
      assert.equal(result.scripts, 0);
      assert.equal(result.handlers, 0, 'no element carries an event handler, href or src');
    }
    assert.deepEqual(dialogs, []);
    await screenshot(page, 'chat-hostile-content');
  });

  it('reads the code through tools: the steps show as they run, and each expands to what it read', async () => {
    mock.script(
      { text: 'Let me check the code.', toolUses: [{ name: 'search_wiki', input: { query: 'error responses' } }, { name: 'read_code', input: { citation: 'src/errors.ts:toErrorResponse' } }] },
      { text: 'A thrown HttpError becomes its status in `src/errors.ts:toErrorResponse`; see [[errors-become-responses-at-the-edge]].', chunks: 6 },
    );
    const answer = await askInView('What status does a thrown HttpError become?');
    await answer.filter({ hasText: 'becomes its status' }).waitFor({ timeout: 30000 });
    const steps = answer.locator('details.tool-steps');
    await steps.locator('summary', { hasText: '2 tool steps' }).click();
    await steps.locator('.tool-step.ok summary', { hasText: 'Read src/errors.ts:toErrorResponse' }).click();
    // Only an expanded step's output is visible.
    await steps.locator('.step-output', { hasText: 'function toErrorResponse' }).waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(await steps.locator('.tool-step.ok').count(), 2);
    assert.ok(await answer.locator('.code-link[data-citation="src/errors.ts:toErrorResponse"]').count(), 'the citation it read is a link');
    // The Pages view folded away for the picture, so the chat has the sidebar's height.
    await setPagesExpanded(false);
    await answer.locator('.markdown-body').scrollIntoViewIfNeeded();
    await screenshot(page, 'chat-tool-steps');
    await setPagesExpanded(true);
  });

  it('keeps the history across a window reload', async () => {
    await page.reload();
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    await openChat();
    await chat().locator('button#show-history').click();
    // The four questions so far were one conversation, continued turn by turn.
    const items = chat().locator('#history .conversation-item');
    await items.filter({ hasText: 'How does a request flow through the app?' }).filter({ hasText: '4 turns' }).first().waitFor({ timeout: 30000 });
    await screenshot(page, 'chat-history-after-reload');
    await items.filter({ hasText: 'How does a request flow through the app?' }).first().locator('.conversation-open').click();
    await chat().locator('.message.answer', { hasText: 'picks a handler' }).waitFor({ timeout: 30000 });
    // The tool steps were stored with their turn.
    await chat().locator('.message.answer', { hasText: 'becomes its status' }).locator('details.tool-steps summary', { hasText: '2 tool steps' }).waitFor({ timeout: 30000 });
  });

  it('asks about a selection from the editor context menu', async () => {
    // The selection fills in its question only when the box is empty (a draft is never overwritten).
    await chat().locator('#question').fill('');
    await page.locator('.monaco-workbench .part.statusbar').click({ position: { x: 600, y: 5 } });
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill('src/errors.ts');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'errors.ts' }).first().waitFor({ timeout: 30000 });
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: 'errors.ts' }).waitFor({ timeout: 30000 });
    const line = page.locator('.view-line', { hasText: 'export function toErrorResponse' }).first();
    const item = page.locator('.context-view .action-item', { hasText: 'Ask about selection' }).first();
    // The editor may still be settling after Quick Open (focus, the selection context key): select
    // and open the menu again when the first menu comes up without the item.
    for (let attempt = 1; ; attempt++) {
      await line.click();
      await page.keyboard.press('Home');
      for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowDown');
      await line.click({ button: 'right' });
      try {
        await item.waitFor({ timeout: 5000 });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
        await page.keyboard.press('Escape');
      }
    }
    await screenshot(page, 'chat-ask-about-selection-menu');
    // The menu takes keyboard input; a pointer block sits over it in the web workbench.
    await item.hover();
    await page.keyboard.press('Enter');
    const chip = chat().locator('.selection-chip');
    await chip.waitFor({ timeout: 30000 });
    assert.match((await chip.textContent()) ?? '', /errors\.ts/);
    assert.equal(await chat().locator('#question').inputValue(), 'Explain this in the context of the wiki');
    await screenshot(page, 'chat-ask-about-selection');
  });

  it('saves a conversation to the wiki and shows it in the Pages tree', async () => {
    mock.script({ text: 'Thrown errors become responses in one place: [[errors-become-responses-at-the-edge]].' });
    await chat().locator('button#send:not([disabled])').click();
    await chat().locator('.message.answer', { hasText: 'one place' }).waitFor({ timeout: 30000 });
    await chat().locator('button#save-to-wiki').click();
    await chat().locator('.filed-note').waitFor({ timeout: 30000 });
    const pages = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Pages/i }) });
    const header = page.locator('.pane-header', { hasText: /^Pages/i });
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
    // The tree renders only the rows in view, and the topic of filed conversations comes last: go to the end of the list.
    await pages.locator('.monaco-list-row').first().click();
    await page.keyboard.press('End');
    await pages.locator('.monaco-list-row', { hasText: 'Conversations' }).first().waitFor({ timeout: 30000 });
    // The view kept continuing its first conversation, so the page is named after that one's title.
    const filed = path.join(workspace, '.wiki', 'pages', 'how-does-a-request-flow-through-the-app.md');
    assert.ok(fs.existsSync(filed), fs.readdirSync(path.dirname(filed)).join(', '));
    assert.match(fs.readFileSync(filed, 'utf8'), /^topic: conversations$/m);
    assert.match(fs.readFileSync(filed, 'utf8'), /## Explain this in the context of the wiki/);
    await screenshot(page, 'chat-saved-to-wiki');
  });
});
