import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostToWebview } from '../../../src/shared/protocol';
import type { ChatHooks } from '../../../src/vscode/chat/chatView';
import { activateExtension, lintDiagnostics, waitFor, workspaceRoot } from '../helpers';

// This window opens the demo workspace with workspace trust on and the folder untrusted.
describe('Restricted Mode: Repo Wiki reads but never writes', () => {
  let root: string;
  const wikiFile = (...parts: string[]) => path.join(root, '.wiki', ...parts);
  const snapshotOf = (dir: string) =>
    Object.fromEntries(fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort().map((f) => {
      const full = path.join(dir, f);
      return [f, fs.statSync(full).isFile() ? fs.readFileSync(full, 'utf8') : '<dir>'];
    }));

  before(async () => {
    root = workspaceRoot();
    await activateExtension();
  });

  it('runs in an untrusted workspace', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('still lints and shows diagnostics', async () => {
    const uri = vscode.Uri.file(wikiFile('pages', 'testing-handlers-in-process.md'));
    await waitFor('the demo\'s broken link', () => lintDiagnostics(uri).some((d) => d.code === 'broken-link'));
  });

  it('no command writes: new page, rebuild index, init, commit and ingest leave .wiki/ and git untouched', async () => {
    fs.writeFileSync(wikiFile('index.json'), '{ "stale": true }\n'); // a trusted window's rebuild would rewrite this
    const before = snapshotOf(wikiFile());
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
    for (const command of ['repoWiki.newPage', 'repoWiki.rebuildIndex', 'repoWiki.init', 'repoWiki.commit', 'repoWiki.ingestFiles', 'repoWiki.ingestFolder', 'repoWiki.ingestSelection']) {
      assert.equal(await vscode.commands.executeCommand(command), undefined, command);
    }
    assert.deepEqual(snapshotOf(wikiFile()), before);
    assert.equal(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }), head);
  });

  it('does not regenerate a conflicted index on its own', async () => {
    const conflicted = `<<<<<<< HEAD\n${fs.readFileSync(wikiFile('index.json'), 'utf8')}=======\n{}\n>>>>>>> theirs\n`;
    fs.writeFileSync(wikiFile('index.json'), conflicted);
    fs.appendFileSync(wikiFile('pages', 'request-pipeline.md'), '\nAn edit that would normally trigger an index rebuild.\n');
    // Give the watcher and the debounce far longer than they need in a trusted window.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.equal(fs.readFileSync(wikiFile('index.json'), 'utf8'), conflicted);
  });

  it('chat answers offline and sends nothing to a model, even with a key set', async () => {
    const { startMockAnthropic } = require(path.join(findUp('test/harness/mockAnthropic.cjs')));
    const mock = await startMockAnthropic();
    process.env.ANTHROPIC_API_KEY = 'sk-ant-restricted-key';
    await vscode.workspace.getConfiguration('repoWiki.llm').update('baseUrl', mock.url, vscode.ConfigurationTarget.Global);
    try {
      const api = await activateExtension();
      const chat = api.hooks.chat as ChatHooks;
      const posted: HostToWebview[] = [];
      const subscription = chat.onDidPost((m) => posted.push(m));
      await chat.send({ type: 'ask', requestId: 'restricted1', question: 'How do errors become HTTP responses?' });
      subscription.dispose();
      const done = posted.find((m): m is Extract<HostToWebview, { type: 'turnDone' }> => m.type === 'turnDone');
      assert.ok(done, JSON.stringify(posted.filter((m) => m.type === 'turnFailed')));
      assert.equal(done.turn.offline, true);
      assert.match(done.turn.answer, /Restricted Mode/);
      assert.equal(mock.requests.length, 0);
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      await vscode.workspace.getConfiguration('repoWiki.llm').update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
      await mock.close();
    }
  });
});

function findUp(relative: string): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, relative))) return path.join(dir, relative);
  }
  throw new Error(`${relative} not found`);
}
