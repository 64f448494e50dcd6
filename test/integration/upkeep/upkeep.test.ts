import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { UpkeepRun } from '../../../src/core/upkeep/upkeep';
import type { IngestHooks } from '../../../src/vscode/ingest/ingestFeature';
import type { UpkeepHooks } from '../../../src/vscode/upkeep/upkeepFeature';
import { activateExtension, startMockAnthropic, waitFor, workspaceRoot, type MockAnthropic } from '../helpers';

// The suite's window opens with repoWiki.upkeep.interval "daily" and a 3 s first check, on the
// demo wiki with src/todos.ts:TodoStore.complete deleted (uncommitted) before it opened, and
// ANTHROPIC_API_KEY set (a model is set up, so the scheduled run offers updates).
const API_KEY = 'sk-ant-upkeep-test-key';

describe('Upkeep in the real extension host', () => {
  let root: string;
  let hooks: UpkeepHooks;
  let ingest: IngestHooks;
  let mock: MockAnthropic;
  const page = () => fs.readFileSync(path.join(root, '.wiki', 'pages', 'errors-become-responses-at-the-edge.md'), 'utf8');
  const logLines = () => fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const lastLogLine = () => logLines().at(-1);
  const llm = () => vscode.workspace.getConfiguration('repoWiki.llm');
  // The offer is answered only once the test about it opens this gate, so the update it starts never races the tests before.
  let openGate!: (choice: string) => void;
  const gate = new Promise<string>((resolve) => (openGate = resolve));
  let offered: { message: string; pages: readonly string[] } | undefined;

  before(async () => {
    root = workspaceRoot();
    const api = await activateExtension();
    hooks = api.hooks.upkeep as UpkeepHooks;
    // First, before the scheduled run 3 s after startup can offer anything.
    hooks.setOfferAsker((message, pages) => ((offered = { message, pages }), gate));
    ingest = api.hooks.ingest as IngestHooks;
    mock = await startMockAnthropic({ validKey: API_KEY });
    await llm().update('baseUrl', mock.url, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    hooks.setOfferAsker(undefined);
    ingest.setChangeChooser(undefined);
    await llm().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await mock?.close();
  });

  it('runs on its schedule soon after startup: the page citing the deleted method is marked stale, and the log says so', async () => {
    const { run } = await waitFor('the scheduled upkeep', () => hooks.lastRun(root), 30000);
    assert.deepEqual(run.plan.stale, [{ slug: 'errors-become-responses-at-the-edge', citations: ['src/todos.ts:TodoStore.complete'] }]);
    assert.match(page(), /\nstatus: stale\n/);
    assert.match(page(), /stale_reason: "?upkeep: cited code no longer exists: src\/todos\.ts:TodoStore\.complete/);
    assert.deepEqual({ op: lastLogLine().op, stale: lastLogLine().stale }, { op: 'upkeep', stale: ['errors-become-responses-at-the-edge'] });
    const index = JSON.parse(fs.readFileSync(path.join(root, '.wiki', 'index.json'), 'utf8'));
    assert.equal(index.pages.find((entry: { slug: string }) => entry.slug === 'errors-become-responses-at-the-edge').status, 'stale');
  });

  it('the scheduled run offers updates for the drifted pages once; "Propose updates" sends them to the librarian, and its edit goes to review', async () => {
    const slug = 'errors-become-responses-at-the-edge';
    // Deleting the method drifted both the page citing it (missing) and the page citing its class (body changed).
    const drifted = [`.wiki/pages/${slug}.md`, '.wiki/pages/testing-handlers-in-process.md'];
    const decision = await waitFor('the offer to propose updates', () => hooks.lastOffer(root), 30000);
    assert.deepEqual(decision, { offer: true, pages: drifted, remember: drifted });
    assert.deepEqual(offered, { message: '2 wiki pages drifted: propose updates?', pages: drifted });
    const linesBefore = logLines().length;
    // For the first page the librarian drops the missing method (the review declines it); the second only needs a re-stamp.
    const body = '# Errors become responses at the edge\n\nHandlers throw `src/errors.ts:HttpError`; `src/pipeline.ts:Pipeline.run` turns it into a response.\n';
    mock.script(
      { text: JSON.stringify({ pages: [{ action: 'update', slug, title: 'Errors become responses at the edge', topic: 'decisions', summary: 'Errors become responses in Pipeline.run.', tags: ['errors'], body, citations: ['src/errors.ts:HttpError', 'src/pipeline.ts:Pipeline.run'] }], corroborate: [], links: [] }) },
      { text: JSON.stringify({ pages: [], corroborate: [], links: [] }) },
    );
    const reviewed: string[] = [];
    ingest.setChangeChooser(async (changes) => ((reviewed.push(...changes.map((change) => `${change.kind}:${change.slug}`))), undefined));
    const pageBefore = page();

    openGate('Propose updates');

    const entry = await waitFor('the update run\'s log line', () => logLines().slice(linesBefore).find((line) => line.op === 'generate'), 30000);
    assert.equal(mock.requests.length, 2, 'each drifted page was sent once');
    assert.match(JSON.stringify(mock.requests[0].body.messages), /missing-symbol/);
    assert.deepEqual(reviewed, [`update:${slug}`], 'the edit was reviewed before anything was written');
    assert.deepEqual([entry.update, entry.updated, entry.declined, entry.restamped], [true, [], [slug], ['testing-handlers-in-process']]);
    assert.equal(page(), pageBefore, 'declined in review: nothing was written');
  });

  it('"Run wiki upkeep now" brings the page back once the method is back', async () => {
    execFileSync('git', ['checkout', '--', 'src/todos.ts'], { cwd: root });
    const run = await vscode.commands.executeCommand<UpkeepRun>('repoWiki.upkeep');
    assert.deepEqual(run?.plan.reactivated, ['errors-become-responses-at-the-edge']);
    assert.match(page(), /\nstatus: active\n/);
    assert.doesNotMatch(page(), /stale_reason/);
    assert.deepEqual(lastLogLine().reactivated, ['errors-become-responses-at-the-edge']);
  });

  it('a second run the same day changes nothing and logs nothing', async () => {
    const before = fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8');
    const run = await vscode.commands.executeCommand<UpkeepRun>('repoWiki.upkeep');
    assert.equal(run?.result?.pages.length, 0);
    assert.equal(fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8'), before);
  });
});
