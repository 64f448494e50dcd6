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
const { startMockOllama } = harness('mockOllama.cjs');

const API_KEY = 'sk-ant-e2e-providers-1';

// The footer of an answer that came from a fallback: Claude is overloaded, Ollama on this machine answers.
describe('A fallback model in the real workbench', function () {
  this.timeout(240000);
  let session: WorkbenchSession | undefined;
  let page: Page;
  let workspace: string;
  let anthropic: { url: string; script(...replies: unknown[]): void; close(): Promise<void> };
  let ollama: { url: string; requests: { numCtx?: number; body: { messages?: unknown } }[]; script(...replies: unknown[]): void; close(): Promise<void> };
  screenshotFailures(() => page, 'failed-providers');

  before(async () => {
    anthropic = await startMockAnthropic({ validKey: API_KEY });
    ollama = await startMockOllama();
    workspace = prepareWorkspace(path.join(ROOT, 'demo'));
    session = await openWorkbenchSession(workspace, {
      env: { ANTHROPIC_API_KEY: API_KEY },
      settings: { 'repoWiki.llm.baseUrl': anthropic.url, 'repoWiki.llm.model': 'anthropic/claude-sonnet-5-5', 'repoWiki.llm.fallbacks': ['ollama/qwen2.5-coder:7b'], 'repoWiki.llm.ollama.host': ollama.url },
    });
    page = session.page;
  });

  after(async () => {
    await session?.stop();
    await Promise.all([anthropic?.close(), ollama?.close()]);
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('the footer reads "answered by ollama/… after anthropic/… failed (overloaded)"', async () => {
    // Overloaded on the first try and on each of the adapter's three retries (asked to wait 1 ms).
    anthropic.script(...Array.from({ length: 4 }, () => ({ status: 529, retryAfterMs: 1 })));
    ollama.script({ text: 'Requests go through `src/pipeline.ts:Pipeline.run`, which picks a handler per route. See [[request-pipeline]].', chunks: 6 });
    await openChatView(page);
    const chat = webviewFrame(page);
    await chat.locator('#question').fill('How does a request flow through the app?');
    await chat.locator('button#send:not([disabled])').click();
    const badge = chat.locator('.answer-footer .model-name.fell-back').last();
    await badge.waitFor({ timeout: 60000 });
    assert.equal(await badge.textContent(), 'answered by ollama/qwen2.5-coder:7b after anthropic/claude-sonnet-5-5 failed (overloaded)');
    assert.match((await badge.getAttribute('title')) ?? '', /anthropic\/claude-sonnet-5-5 failed \(overloaded\): The Anthropic API is overloaded/);
    assert.ok(ollama.requests.some((request) => request.body.messages && request.numCtx === 32768), 'Ollama was sent num_ctx');
    await badge.scrollIntoViewIfNeeded();
    await screenshot(page, 'chat-fallback-footer');
  });
});
