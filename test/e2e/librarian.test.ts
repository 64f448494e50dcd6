import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';

const ROOT = path.resolve(__dirname, '../../..');
const harness = (name: string) => require(path.join(ROOT, 'test', 'harness', name));
const { ensureRuntime } = harness('runtime.cjs');
const { startServer, installVsix } = harness('server.cjs');
const { prepareWorkspace } = harness('ext-tests.cjs');
const { launchBrowser, openWorkbench, runCommand, screenshot } = harness('browser.cjs');
const { startMockAnthropic } = harness('mockAnthropic.cjs');

const API_KEY = 'sk-ant-e2e-librarian-key';

const PLAN = {
  pages: [{
    action: 'create',
    slug: 'response-caching',
    title: 'Response caching',
    topic: 'patterns',
    summary: 'Which responses the pipeline caches, and why errors never are.',
    tags: ['http', 'caching'],
    body: '# Response caching\n\nGET responses are cached once `src/pipeline.ts:Pipeline.run` has produced them.\nErrors thrown as `src/errors.ts:HttpError` are never cached.\n\nSee [[request-pipeline]].',
    citations: ['src/pipeline.ts:Pipeline.run', 'src/errors.ts:HttpError'],
  }],
  corroborate: [{ slug: 'errors-become-responses-at-the-edge', reason: 'the caching notes confirm errors become responses in Pipeline.run' }],
  links: [{ from: 'request-pipeline', to: 'response-caching' }],
};

describe('The librarian in a real VS Code workbench (installed from the .vsix)', function () {
  this.timeout(240000);
  let server: { workbenchUrl(folder: string): string; stop(): Promise<void> };
  let mock: { url: string; requests: { body: { messages: { content: string }[] } }[]; script(...replies: unknown[]): void; close(): Promise<void> };
  let browser: Browser;
  let page: Page;
  let workspace: string;
  let extensionsDir: string;

  before(async () => {
    const vsix = process.env.REPO_WIKI_VSIX ?? path.join(ROOT, 'dist-vsix', 'repo-wiki.vsix');
    assert.ok(fs.existsSync(vsix), `${vsix} exists (run npm run package)`);
    await ensureRuntime();
    mock = await startMockAnthropic({ validKey: API_KEY });
    workspace = prepareWorkspace(path.join(ROOT, 'demo'));
    fs.mkdirSync(path.join(workspace, 'docs'));
    fs.writeFileSync(path.join(workspace, 'docs', 'caching.md'), '# Caching\n\nWe cache GET responses once the pipeline has produced them.\nErrors are never cached: they become responses at the edge.\n');
    extensionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-ext-'));
    await installVsix(vsix, extensionsDir);
    server = await startServer({ folder: workspace, extensionsDir, env: { ANTHROPIC_API_KEY: API_KEY }, settings: { 'repoWiki.llm.baseUrl': mock.url } });
    browser = await launchBrowser();
    page = await openWorkbench(browser, server.workbenchUrl(workspace));
    await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) await screenshot(page, `failed-librarian-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await mock?.close();
    for (const dir of [workspace, extensionsDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ingests the open file: a diff preview and a review list, then the accepted pages are written', async () => {
    // Open docs/caching.md from the Explorer.
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: /^docs$/ }).first().click();
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'caching.md' }).first().click();
    await page.locator('.tab.active', { hasText: 'caching.md' }).waitFor({ timeout: 30000 });

    mock.script({ text: JSON.stringify(PLAN), chunks: 6, delayMs: 50 });
    await runCommand(page, 'Repo Wiki: Ingest file(s) into wiki');
    const review = page.locator('.quick-input-widget', { hasText: /review 3 proposed changes/ });
    await review.waitFor({ timeout: 60000 });
    await review.locator('.monaco-list-row', { hasText: 'Response caching' }).waitFor({ timeout: 10000 });
    await review.locator('.monaco-list-row', { hasText: 'Errors become responses at the edge' }).waitFor({ timeout: 10000 });
    await page.locator('.tab', { hasText: /↔ proposed/ }).first().waitFor({ timeout: 30000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30000 });
    await screenshot(page, 'ingest-preview');
    assert.match(mock.requests[0].body.messages[0].content, /<source path="docs\/caching.md"/);

    // Uncheck the corroboration, keep the rest, apply with Enter.
    await review.locator('.monaco-list-row', { hasText: 'Errors become responses at the edge' }).locator('.monaco-checkbox, input[type=checkbox]').first().click();
    await page.keyboard.press('Enter');
    await page.locator('.notification-toast', { hasText: /1 created, 1 linked/ }).waitFor({ timeout: 30000 });
    const created = path.join(workspace, '.wiki', 'pages', 'response-caching.md');
    assert.ok(fs.existsSync(created));
    assert.match(fs.readFileSync(created, 'utf8'), /"src\/pipeline.ts:Pipeline.run": "sig:[0-9a-f]{8} body:[0-9a-f]{8}"/);
    assert.match(fs.readFileSync(path.join(workspace, '.wiki', 'pages', 'errors-become-responses-at-the-edge.md'), 'utf8'), /^corroborations: 1$/m, 'the unchecked corroboration was not applied');
    await screenshot(page, 'ingest-applied');
  });
});
