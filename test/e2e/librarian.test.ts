import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbenchSession, type WorkbenchSession } from './workbenchSession';

const ROOT = path.resolve(__dirname, '../../..');
const harness = (name: string) => require(path.join(ROOT, 'test', 'harness', name));
const { prepareWorkspace } = harness('ext-tests.cjs');
const { runCommand, screenshot } = harness('browser.cjs');
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
  let session: WorkbenchSession;
  let mock: { url: string; requests: { body: { messages: { content: string }[] } }[]; script(...replies: unknown[]): void; close(): Promise<void> };
  let page: Page;
  let workspace: string;

  before(async () => {
    mock = await startMockAnthropic({ validKey: API_KEY });
    workspace = prepareWorkspace(path.join(ROOT, 'demo'));
    fs.mkdirSync(path.join(workspace, 'docs'));
    fs.writeFileSync(path.join(workspace, 'docs', 'caching.md'), '# Caching\n\nWe cache GET responses once the pipeline has produced them.\nErrors are never cached: they become responses at the edge.\n');
    session = await openWorkbenchSession(workspace, { env: { ANTHROPIC_API_KEY: API_KEY }, settings: { 'repoWiki.llm.baseUrl': mock.url, 'repoWiki.lint.llm.minAgeDays': 0 } }); // the demo's pages were updated days ago
    page = session.page;
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) await screenshot(page, `failed-librarian-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  after(async () => {
    await session?.stop();
    await mock?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
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
    const row = review.locator('.monaco-list-row', { hasText: 'Errors become responses at the edge' }).first();
    // The row is the checkbox (role="checkbox"); check the state rather than trust one click.
    for (let attempt = 1; (await row.getAttribute('aria-checked')) !== 'false'; attempt++) {
      if (attempt > 3) throw new Error('could not uncheck the corroboration');
      await row.locator('.monaco-checkbox').click();
      await page.waitForTimeout(200);
    }
    await review.getByText('2 Selected').waitFor({ timeout: 5000 });
    await page.keyboard.press('Enter');
    await page.locator('.notification-toast', { hasText: /1 created, 1 linked/ }).waitFor({ timeout: 30000 });
    const created = path.join(workspace, '.wiki', 'pages', 'response-caching.md');
    assert.ok(fs.existsSync(created));
    assert.match(fs.readFileSync(created, 'utf8'), /"src\/pipeline.ts:Pipeline.run": "sig:[0-9a-f]{8} body:[0-9a-f]{8}"/);
    assert.match(fs.readFileSync(path.join(workspace, '.wiki', 'pages', 'errors-become-responses-at-the-edge.md'), 'utf8'), /^corroborations: 1$/m, 'the unchecked corroboration was not applied');
    await page.locator('.tab', { hasText: /↔ proposed/ }).first().waitFor({ state: 'detached', timeout: 10000 });
    await screenshot(page, 'ingest-applied');
  });

  it('reviews a page an agent proposed over MCP: the Pages view lists it, the diff review shows it, Enter accepts it', async () => {
    // An agent proposes through the real MCP server, as Claude Code would.
    const { Client } = require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js') as typeof import('@modelcontextprotocol/sdk/client/stdio.js');
    const client = new Client({ name: 'claude-code', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, 'dist', 'cli.js'), 'mcp', '--workspace', workspace], stderr: 'ignore' }));
    try {
      const result = await client.callTool({ name: 'propose_page_change', arguments: {
        slug: 'router-errors', title: 'Router errors', topic: 'gotchas', summary: 'The router throws 404 for an unknown path and 405 for a wrong method.',
        body: '# Router errors\n\n`src/router.ts:Router.handle` throws a 404 when no route matches and a 405 when the method does not.\n\nSee [[request-pipeline]].\n',
        reason: 'Learned while debugging a 405 on PUT /todos.',
      } });
      assert.equal(result.isError, false, JSON.stringify(result.content));
    } finally {
      await client.close();
    }
    // The Repo Wiki view, where the Pages tree lists what waits for review (the test before left the Explorer open).
    const pagesHeader = page.locator('.pane-header', { hasText: /^Pages/i });
    const icon = page.locator('.part.activitybar .action-item a[aria-label^="Repo Wiki"]');
    for (let attempt = 1; !(await pagesHeader.isVisible()); attempt++) {
      assert.ok(attempt <= 4, 'the Repo Wiki view did not open');
      await icon.click();
      await page.waitForTimeout(1000);
    }
    const proposals = page.locator('.monaco-list-row', { hasText: /1 proposal to review/ });
    await proposals.waitFor({ timeout: 30000 });
    await page.locator('.monaco-list-row', { hasText: 'Router errors' }).first().click();
    const review = page.locator('.quick-input-widget', { hasText: /Proposal from mcp:claude-code: review 1 proposed change/ });
    await review.waitFor({ timeout: 30000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30000 });
    await screenshot(page, 'proposal-review');
    await page.keyboard.press('Enter');
    await page.locator('.notification-toast', { hasText: /Proposal from mcp:claude-code: 1 created/ }).waitFor({ timeout: 30000 });
    assert.match(fs.readFileSync(path.join(workspace, '.wiki', 'pages', 'router-errors.md'), 'utf8'), /"src\/router\.ts:Router\.handle": "sig:/);
    await proposals.waitFor({ state: 'detached', timeout: 30000 });
    await screenshot(page, 'proposal-accepted');
  });

  it('shows the librarian lint findings in the Problems panel, with the report', async () => {
    mock.script((body: { messages: { content: string }[] }) => ({
      text: JSON.stringify({
        findings: /<page slug="middleware-conventions"/.test(body.messages[0].content) ? [
          { kind: 'unsupported-claim', page: 'middleware-conventions', quote: 'never a mutated original', severity: 'warning', message: 'requestTimeout copies the request today, but the page claims every middleware does; logger passes the original through.' },
          { kind: 'missing-link', page: 'middleware-conventions', quote: 'Short-circuit', severity: 'info', related: ['errors-become-responses-at-the-edge'], message: 'Short-circuiting by throwing is the subject of another page; link it.' },
        ] : [],
      }),
      usage: { input_tokens: 5200, output_tokens: 240 },
    }));
    await runCommand(page, 'Repo Wiki: Lint wiki with the librarian');
    const toast = page.locator('.notification-toast', { hasText: /Librarian lint: 2 findings/ });
    await toast.waitFor({ timeout: 60000 });
    await toast.getByRole('button', { name: 'Show Problems' }).click();
    const problems = page.locator('.markers-panel');
    await problems.getByText(/requestTimeout copies the request today/).first().waitFor({ timeout: 30000 });
    await problems.getByText(/Short-circuiting by throwing/).first().waitFor({ timeout: 30000 });
    await problems.locator('.monaco-list-row', { hasText: /requestTimeout copies the request today/ }).first().dblclick();
    await page.locator('.tab.active', { hasText: 'middleware-conventions.md' }).waitFor({ timeout: 30000 });
    await runCommand(page, 'Notifications: Clear All Notifications');
    await screenshot(page, 'librarian-lint-problems');
    await runCommand(page, 'Repo Wiki: Open the librarian lint report');
    await page.locator('.tab.active', { hasText: 'librarian-lint.md' }).waitFor({ timeout: 30000 });
    await page.locator('.editor-instance .view-lines', { hasText: /Tokens:\s5,200\sinput/ }).first().waitFor({ timeout: 30000 }); // Monaco renders spaces as nbsp
    await screenshot(page, 'librarian-lint-report');
  });
});
