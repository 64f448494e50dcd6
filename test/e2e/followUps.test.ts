import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openChatView, openWorkbenchSession, screenshotFailures, type WorkbenchSession } from './workbenchSession';

const ROOT = path.resolve(__dirname, '../../..');
const harness = (name: string) => require(path.join(ROOT, 'test', 'harness', name));
const { prepareWorkspace } = harness('ext-tests.cjs');
const { screenshot, webviewFrame } = harness('browser.cjs');
const { startMockAnthropic } = harness('mockAnthropic.cjs');

const API_KEY = 'sk-ant-e2e-follow-ups-1';

// Retry's sibling answers ("1 / 2") and an edit's fork with its lineage in the history, as a user sees them.
describe('Retry siblings and fork lineage in the real workbench', function () {
  this.timeout(240000);
  let session: WorkbenchSession | undefined;
  let page: Page;
  let workspace: string;
  let mock: { url: string; script(...replies: unknown[]): void; setTitleReply(reply: unknown): void; close(): Promise<void> };
  const chat = () => webviewFrame(page);
  screenshotFailures(() => page, 'failed-follow-ups');

  before(async () => {
    mock = await startMockAnthropic({ validKey: API_KEY });
    workspace = prepareWorkspace(path.join(ROOT, 'demo'));
    session = await openWorkbenchSession(workspace, { env: { ANTHROPIC_API_KEY: API_KEY }, settings: { 'repoWiki.llm.baseUrl': mock.url } });
    page = session.page;
    await openChatView(page);
    // Room for the conversation: the Pages view above the chat is folded.
    const pages = page.locator('.pane-header', { hasText: /^Pages/i });
    if ((await pages.getAttribute('aria-expanded')) === 'true') await pages.locator('h3.title').click();
    await page.locator('.pane-header[aria-expanded="false"]', { hasText: /^Pages/i }).waitFor({ timeout: 10000 });
    await page.waitForTimeout(500); // the chat view moves up into the room: let the layout settle before clicking in it
  });

  after(async () => {
    await session?.stop();
    await mock?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  async function ask(question: string, answer: string): Promise<void> {
    mock.script({ text: answer });
    const input = chat().locator('#question');
    await input.fill(question);
    // Send is enabled once there is a question and the last answer is done. Enter sends; a key press
    // does not depend on where the view is laid out, as a click does.
    await chat().locator('button#send:not([disabled])').waitFor({ timeout: 30000 });
    await input.press('Enter');
    await chat().locator('.message.answer', { hasText: answer.split('[[')[0].trim().slice(0, 30) }).waitFor({ timeout: 30000 });
  }

  it('Retry keeps both answers and "1 / 2" moves between them', async () => {
    mock.setTitleReply({ text: 'Request flow' });
    await ask('How does a request flow through the app?', 'Through the middleware chain, see [[request-pipeline]].');
    await ask('Where are errors turned into responses?', 'At the edge, in one place: [[errors-become-responses-at-the-edge]].');
    mock.script({ text: 'In the error middleware, which maps each HttpError to a status: [[errors-become-responses-at-the-edge]].' });
    const last = chat().locator('.turn').last();
    await last.hover();
    await last.locator('button.retry').click();
    const position = chat().locator('.turn').last().locator('.sibling-position');
    await position.filter({ hasText: '2 / 2' }).waitFor({ timeout: 30000 });
    assert.match((await chat().locator('.turn').last().textContent()) ?? '', /error middleware/);
    await position.scrollIntoViewIfNeeded();
    await screenshot(page, 'chat-retry-siblings');

    await chat().locator('.turn').last().locator('button.sibling-previous').click();
    await chat().locator('.turn').last().locator('.sibling-position').filter({ hasText: '1 / 2' }).waitFor({ timeout: 30000 });
    assert.match((await chat().locator('.turn').last().textContent()) ?? '', /At the edge, in one place/);
    assert.equal(await chat().locator('.turn').last().locator('button.sibling-previous').isDisabled(), true);
    await chat().locator('.turn').last().locator('.sibling-position').scrollIntoViewIfNeeded();
    await screenshot(page, 'chat-retry-siblings-first');
  });

  it('an edited question forks; the history says where the fork came from', async () => {
    const first = chat().locator('.turn').first();
    await first.locator('.message.question').hover();
    await first.locator('button.edit').click();
    const editor = chat().locator('textarea.edit-question');
    await editor.waitFor({ timeout: 10000 });
    mock.setTitleReply({ text: 'Middleware order' });
    mock.script({ text: 'Each middleware calls next(); the router runs last: [[request-pipeline]].' });
    await editor.fill('In which order do middlewares run?');
    await editor.press('Enter');
    await chat().locator('.message.answer', { hasText: 'calls next()' }).waitFor({ timeout: 30000 });
    await chat().locator('button#show-history').click();
    const lineage = chat().locator('#history .conversation-item', { hasText: 'Middleware order' }).filter({ hasText: 'forked from' }).first();
    await lineage.waitFor({ timeout: 30000 });
    assert.match((await lineage.textContent()) ?? '', /forked from “Request flow” at its start/);
    await screenshot(page, 'chat-fork-lineage');
  });
});
