import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbenchSession, screenshotFailures, type WorkbenchSession } from './workbenchSession';

const ROOT = path.resolve(__dirname, '../../..');
const harness = (name: string) => require(path.join(ROOT, 'test', 'harness', name));
const { prepareWorkspace } = harness('ext-tests.cjs');
const { runCommand, screenshot } = harness('browser.cjs');
const { startMockAnthropic } = harness('mockAnthropic.cjs');

const API_KEY = 'sk-ant-e2e-generate-key';
const SLUG = 'errors-become-responses-at-the-edge';

/** An outline as the librarian would propose it for the demo: an overview, the modules, patterns, testing, gotchas. */
const OUTLINE = {
  pages: [
    { slug: 'overview', title: 'Overview of the todo API', topic: 'architecture', purpose: 'What the service does and how a request flows through it.', files: ['src/todos.ts', 'src/pipeline.ts'] },
    { slug: 'todo-store', title: 'The todo store', topic: 'architecture', purpose: 'How todos are kept in memory, found, completed and removed.', files: ['src/todos.ts'] },
    { slug: 'routing', title: 'Routing requests', topic: 'architecture', purpose: 'How paths with parameters are matched to handlers, and the 404/405 rules.', files: ['src/router.ts'] },
    { slug: 'middleware-chain', title: 'The middleware chain', topic: 'patterns', purpose: 'How middleware is composed around the handler, and what each may change.', files: ['src/pipeline.ts', 'src/middleware.ts'] },
    { slug: 'http-errors', title: 'HTTP errors', topic: 'patterns', purpose: 'HttpError, its status codes, and where it becomes a JSON response.', files: ['src/errors.ts'] },
    { slug: 'request-types', title: 'Request and response types', topic: 'architecture', purpose: 'The shapes handlers receive and return.', files: ['src/types.ts'] },
    { slug: 'testing-the-api', title: 'Testing the API in process', topic: 'testing', purpose: 'Driving the app without a server, with a seeded store.', files: ['src/todos.ts'] },
    { slug: 'gotchas', title: 'Gotchas', topic: 'gotchas', purpose: 'Trailing slashes, lower-cased header names, and other surprises.', files: ['src/router.ts', 'src/types.ts'] },
  ],
};

describe('Drafting and updating the wiki in a real VS Code workbench (installed from the .vsix)', function () {
  this.timeout(240000);
  let session: WorkbenchSession;
  let mock: { url: string; requests: { body: { messages: { content: unknown }[] } }[]; script(...replies: unknown[]): void; close(): Promise<void> };
  let page: Page;
  let workspace: string;
  const pageFile = () => path.join(workspace, '.wiki', 'pages', `${SLUG}.md`);

  before(async () => {
    mock = await startMockAnthropic({ validKey: API_KEY });
    workspace = prepareWorkspace(path.join(ROOT, 'demo'));
    // Both pages citing the store are verified at HEAD; then TodoStore.complete changes, so one page drifts.
    execFileSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'drift', '--workspace', workspace, '--review', SLUG, '--review', 'testing-handlers-in-process'], { stdio: 'pipe' });
    const todos = path.join(workspace, 'src', 'todos.ts');
    fs.writeFileSync(todos, fs.readFileSync(todos, 'utf8').replace('    todo.done = done;\n', '    todo.done = done;\n    todo.completedAt = Date.now();\n'));
    // Upkeep (off by default under test) runs 3 s after startup, so its offer to propose updates shows while the test waits for it.
    session = await openWorkbenchSession(workspace, { env: { ANTHROPIC_API_KEY: API_KEY, REPO_WIKI_UPKEEP_DELAY_MS: '3000' }, settings: { 'repoWiki.llm.baseUrl': mock.url, 'repoWiki.upkeep.interval': 'daily' } });
    page = session.page;
  });

  screenshotFailures(() => page, 'failed-generate');

  after(async () => {
    await session?.stop();
    await mock?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('upkeep offers updates; "Propose updates" shows the drifted page\'s edit as a diff, and Enter writes it', async () => {
    const offer = page.locator('.notification-toast', { hasText: /1 wiki page drifted: propose updates\?/ });
    await offer.waitFor({ timeout: 90000 });
    await screenshot(page, 'upkeep-offers-updates');

    const before = fs.readFileSync(pageFile(), 'utf8');
    const body = before.split(/\n---\n/).slice(1).join('\n---\n');
    const sentence = 'Handlers stay linear: `src/todos.ts:TodoStore.complete` throws a 404 for an unknown id, and';
    assert.ok(body.includes(sentence), 'demo page changed: update this test');
    const edited = body.replace(sentence, 'Handlers stay linear: `src/todos.ts:TodoStore.complete` throws a 404 for an unknown id (and records\n  `completedAt` on the todo it completes), and');
    mock.script({
      text: JSON.stringify({
        pages: [{ action: 'update', slug: SLUG, title: 'Errors become responses at the edge', topic: 'decisions', summary: 'Decision to throw HttpError anywhere and convert errors to responses only in Pipeline.run, instead of per-handler try/catch.', tags: ['errors', 'http', 'adr'], body: edited, citations: ['src/todos.ts:TodoStore.complete'] }],
        corroborate: [], links: [],
      }),
      chunks: 4, delayMs: 50,
    });
    await offer.getByRole('button', { name: 'Propose updates' }).click();

    const review = page.locator('.quick-input-widget', { hasText: /Update: errors-become-responses-at-the-edge: review 1 proposed change/ });
    await review.waitFor({ timeout: 60000 });
    await page.locator('.tab', { hasText: /↔ proposed/ }).first().waitFor({ timeout: 30000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30000 });
    // The first changes are in the frontmatter (the date, the re-stamped anchor): scrolling the diff brings the
    // text change into view. The review list stays open (it ignores focus out).
    const proposed = page.locator('.monaco-diff-editor .editor.modified').first();
    await proposed.hover({ position: { x: 200, y: 400 } });
    // Until the changed sentence is in the upper half, clear of the progress notification.
    const changed = proposed.getByText(/records/).first();
    const inView = async () => (await changed.isVisible()) && ((await changed.boundingBox())?.y ?? Infinity) < 450;
    for (let scrolls = 0; !(await inView()); scrolls++) {
      assert.ok(scrolls < 12, 'the text change did not come into view');
      await page.mouse.wheel(0, 150);
      await page.waitForTimeout(300);
    }
    await screenshot(page, 'generate-update-diff');
    assert.equal(mock.requests.length, 1);
    assert.match(JSON.stringify(mock.requests[0].body.messages), /\+ {4}todo\.completedAt = Date\.now\(\);/, 'the model received the diff');

    await review.locator('input').first().click();
    await page.keyboard.press('Enter');
    await page.locator('.notification-toast', { hasText: /Propose updates for drifted pages: 1 updated/ }).waitFor({ timeout: 30000 });
    assert.match(fs.readFileSync(pageFile(), 'utf8'), /`completedAt` on the todo it completes/);
  });

  it('"Draft the wiki" lists the librarian\'s outline, each page with its purpose, all checked, for review', async () => {
    await runCommand(page, 'Notifications: Clear All Notifications');
    mock.script({ text: JSON.stringify(OUTLINE), chunks: 4, delayMs: 50 });
    await runCommand(page, 'Repo Wiki: Draft the wiki for this repository…');
    const review = page.locator('.quick-input-widget', { hasText: /the outline has 8 pages; write which\?/ });
    await review.waitFor({ timeout: 60000 });
    await review.locator('.monaco-list-row', { hasText: 'The todo store' }).waitFor({ timeout: 10000 });
    await review.getByText('8 Selected').waitFor({ timeout: 5000 });
    // The outline's progress ends when the review begins (VS Code keeps a progress notification up for at least 800 ms).
    await page.locator('.notification-toast', { hasText: /drafting the outline/ }).waitFor({ state: 'hidden', timeout: 10000 });
    // The pointer off the input: its hover (the prompt again) would cover the title.
    await page.mouse.move(900, 700);
    await page.getByText('Uncheck pages to skip. Enter writes the rest, each reviewed.', { exact: true }).waitFor({ state: 'hidden', timeout: 5000 });
    await review.getByText(/\(Escape writes nothing\)/).waitFor({ timeout: 5000 });
    await screenshot(page, 'generate-outline-review');
    assert.match(JSON.stringify(mock.requests.at(-1)!.body.messages), /package\.json/, 'the outline was drafted from the manifests');

    // Escape writes nothing.
    await page.keyboard.press('Escape');
    await page.locator('.notification-toast', { hasText: /no page chosen; nothing was written/ }).waitFor({ timeout: 30000 });
    assert.ok(!fs.existsSync(path.join(workspace, '.wiki', 'pages', 'overview.md')));
  });
});
