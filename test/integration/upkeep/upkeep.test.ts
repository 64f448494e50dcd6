import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { UpkeepRun } from '../../../src/core/upkeep/upkeep';
import type { UpkeepHooks } from '../../../src/vscode/upkeep/upkeepFeature';
import { activateExtension, waitFor, workspaceRoot } from '../helpers';

// The suite's window opens with repoWiki.upkeep.interval "daily" and a 3 s first check, on the
// demo wiki with src/todos.ts:TodoStore.complete deleted (uncommitted) before it opened.
describe('Upkeep in the real extension host', () => {
  let root: string;
  let hooks: UpkeepHooks;
  const page = () => fs.readFileSync(path.join(root, '.wiki', 'pages', 'errors-become-responses-at-the-edge.md'), 'utf8');
  const lastLogLine = () => JSON.parse(fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').at(-1)!);

  before(async () => {
    root = workspaceRoot();
    hooks = (await activateExtension()).hooks.upkeep as UpkeepHooks;
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
