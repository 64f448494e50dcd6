import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
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

  it('no command writes: new page, rebuild index, init and commit leave .wiki/ and git untouched', async () => {
    fs.writeFileSync(wikiFile('index.json'), '{ "stale": true }\n'); // a trusted window's rebuild would rewrite this
    const before = snapshotOf(wikiFile());
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
    for (const command of ['repoWiki.newPage', 'repoWiki.rebuildIndex', 'repoWiki.init', 'repoWiki.commit']) {
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
});
