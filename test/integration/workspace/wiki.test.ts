import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RepoWikiApi } from '../../../src/extension';
import { PagesTreeProvider } from '../../../src/vscode/pages/pagesTree';
import { activateExtension, lintDiagnostics, waitFor, workspaceRoot } from '../helpers';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

describe('Repo Wiki in a real VS Code extension host', () => {
  let api: RepoWikiApi;
  let root: string;
  const wikiFile = (...parts: string[]) => path.join(root, '.wiki', ...parts);

  before(async () => {
    root = workspaceRoot();
    api = await activateExtension();
  });

  it('activates without a wiki and contributes every command', async () => {
    assert.ok(api.activationMs < 1000, `activation took ${api.activationMs} ms`);
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['repoWiki.init', 'repoWiki.newPage', 'repoWiki.rebuildIndex', 'repoWiki.lint', 'repoWiki.commit', 'repoWiki.openLog', 'repoWiki.refreshPages']) {
      assert.ok(commands.includes(id), id);
    }
    assert.equal(fs.existsSync(wikiFile()), false, 'nothing is written before the user asks');
  });

  it('"Initialise wiki" creates the .wiki/ files', async () => {
    const result = (await vscode.commands.executeCommand('repoWiki.init')) as { created: boolean; files: string[] };
    assert.equal(result.created, true);
    for (const file of ['SCHEMA.md', 'index.json', 'index.md', 'log.jsonl', '.gitattributes', '.gitignore', 'pages/welcome.md', 'pages/how-to-write-pages.md']) {
      assert.ok(fs.existsSync(wikiFile(file)), file);
    }
    const index = JSON.parse(fs.readFileSync(wikiFile('index.json'), 'utf8'));
    assert.deepEqual(index.pages.map((p: { slug: string }) => p.slug), ['how-to-write-pages', 'welcome']);
    assert.match(fs.readFileSync(wikiFile('log.jsonl'), 'utf8'), /"op":"init"/);
    const again = (await vscode.commands.executeCommand('repoWiki.init')) as { created: boolean };
    assert.equal(again.created, false, 'a second init leaves the wiki alone');
  });

  it('the Pages tree groups pages by topic and marks stale ones', async () => {
    fs.writeFileSync(wikiFile('pages', 'old-notes.md'), [
      '---', 'title: Old notes', 'topic: gotchas', 'summary: Notes that no longer hold.', 'status: stale',
      'stale_reason: the code moved', 'created: 2026-11-01', 'updated: 2026-11-02', '---', 'See [[welcome]].', '',
    ].join('\n'));
    const tree = new PagesTreeProvider(api.services);
    const topics = await waitFor('the gotchas topic', async () => {
      await api.services.snapshots.reloadAll();
      const nodes = await tree.getChildren();
      return nodes.length === 2 ? nodes : undefined;
    });
    assert.deepEqual(topics.map((node) => tree.getTreeItem(node).label), ['Gotchas', 'Other']);
    const [stale] = await tree.getChildren(topics[0]);
    const item = tree.getTreeItem(stale);
    assert.equal(item.label, 'Old notes');
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'warning');
    assert.match(String(item.description), /^stale/);
    assert.equal(item.contextValue, 'repoWiki.page.stale');
  });

  it('lint diagnostics appear on the page at the right line, and clear after a fix', async () => {
    const page = wikiFile('pages', 'welcome.md');
    const original = fs.readFileSync(page, 'utf8');
    fs.writeFileSync(page, `${original}\nSee also [[missing-page]].\n`);
    const uri = vscode.Uri.file(page);
    const diagnostic = await waitFor('a broken-link diagnostic', () => lintDiagnostics(uri).find((d) => d.code === 'broken-link'));
    const line = fs.readFileSync(page, 'utf8').split('\n').findIndex((l) => l.includes('[[missing-page]]'));
    assert.equal(diagnostic.range.start.line, line);
    assert.equal(diagnostic.range.start.character, 'See also '.length);
    assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Error);
    assert.match(diagnostic.message, /\[\[missing-page\]\] points to no page/);

    fs.writeFileSync(page, original);
    await waitFor('the diagnostic to clear', () => !lintDiagnostics(uri).some((d) => d.code === 'broken-link'));
  });

  it('reports malformed frontmatter and a binary file without breaking the rest', async () => {
    fs.writeFileSync(wikiFile('pages', 'broken-yaml.md'), '---\ntitle: [oops\n---\nbody [[welcome]]\n');
    fs.writeFileSync(wikiFile('pages', 'blob.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    const yamlUri = vscode.Uri.file(wikiFile('pages', 'broken-yaml.md'));
    const blobUri = vscode.Uri.file(wikiFile('pages', 'blob.md'));
    await waitFor('the YAML diagnostic', () => lintDiagnostics(yamlUri).some((d) => d.code === 'frontmatter-invalid-yaml'));
    await waitFor('the binary diagnostic', () => lintDiagnostics(blobUri).some((d) => d.code === 'page-binary'));
    const result = (await vscode.commands.executeCommand('repoWiki.lint')) as { issues: number; pages: number };
    assert.equal(result.pages, 5);
    fs.rmSync(yamlUri.fsPath);
    fs.rmSync(blobUri.fsPath);
    await waitFor('both to clear', () => !lintDiagnostics(yamlUri).length && !lintDiagnostics(blobUri).length);
  });

  it('a settled wiki stays quiet: the index upkeep\'s write lock does not set off another reload', async () => {
    fs.writeFileSync(wikiFile('pages', 'welcome.md'), fs.readFileSync(wikiFile('pages', 'welcome.md'), 'utf8') + '\nOne more line.\n');
    let updates = 0;
    const counting = api.services.snapshots.onDidUpdate(() => updates++);
    try {
      await waitFor('the edit to be read', () => updates > 0);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the upkeep it set off runs and settles
      const settled = updates;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.equal(updates, settled, `${updates - settled} reloads in 2 s with nothing changing`);
    } finally {
      counting.dispose();
    }
  });

  it('a severity override from settings changes or hides a code', async () => {
    const config = vscode.workspace.getConfiguration('repoWiki.lint');
    const page = wikiFile('pages', 'lonely.md');
    fs.writeFileSync(page, ['---', 'title: Lonely', 'topic: other', 'summary: Nobody links here.', 'status: active', 'created: 2026-11-01', 'updated: 2026-11-01', '---', 'Alone.', ''].join('\n'));
    const uri = vscode.Uri.file(page);
    await waitFor('an orphan warning', () => lintDiagnostics(uri).find((d) => d.code === 'orphan-page' && d.severity === vscode.DiagnosticSeverity.Warning));
    await config.update('severities', { 'orphan-page': 'hint' }, vscode.ConfigurationTarget.Workspace);
    await waitFor('the orphan as a hint', () => lintDiagnostics(uri).find((d) => d.code === 'orphan-page' && d.severity === vscode.DiagnosticSeverity.Hint));
    await config.update('severities', { 'orphan-page': 'off' }, vscode.ConfigurationTarget.Workspace);
    await waitFor('the orphan hidden', () => !lintDiagnostics(uri).some((d) => d.code === 'orphan-page'));
    await config.update('severities', undefined, vscode.ConfigurationTarget.Workspace);
    fs.rmSync(page);
  });

  it('regenerates an index.json left with merge conflict markers', async () => {
    await vscode.commands.executeCommand('repoWiki.rebuildIndex'); // settle earlier tests' page changes
    const good = fs.readFileSync(wikiFile('index.json'), 'utf8');
    fs.writeFileSync(wikiFile('index.json'), `<<<<<<< HEAD\n${good}=======\n{"version":1,"pages":[]}\n>>>>>>> theirs\n`);
    await waitFor('the index to be repaired', () => fs.readFileSync(wikiFile('index.json'), 'utf8') === good);
    // The command alone repairs this one: with the watcher on, it may win the race and leave the command nothing to change.
    const index = vscode.workspace.getConfiguration('repoWiki.index');
    await index.update('rebuildOnChange', false, vscode.ConfigurationTarget.Workspace);
    try {
      fs.writeFileSync(wikiFile('index.json'), '{ not json');
      const rebuilt = (await vscode.commands.executeCommand('repoWiki.rebuildIndex')) as { pages: number; changed: boolean };
      assert.equal(rebuilt.changed, true);
      assert.equal(fs.readFileSync(wikiFile('index.json'), 'utf8'), good);
    } finally {
      await index.update('rebuildOnChange', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('"Open log" opens log.jsonl', async () => {
    const result = (await vscode.commands.executeCommand('repoWiki.openLog')) as { entries: number; skipped: number };
    assert.ok(result.entries >= 1);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, wikiFile('log.jsonl'));
  });

  it('"Commit wiki changes" commits only .wiki/ and keeps the user\'s other changes', async () => {
    await vscode.workspace.getConfiguration('repoWiki.commit').update('editMessage', false, vscode.ConfigurationTarget.Workspace);
    const source = path.join(root, 'src', 'staged.ts');
    fs.writeFileSync(source, 'export const staged = 1;\n');
    git(root, 'add', 'src/staged.ts');
    fs.appendFileSync(path.join(root, 'README.md'), '\nunstaged edit\n');
    const before = git(root, 'status', '--porcelain', '--', '.', ':!.wiki', ':!.vscode');
    const headBefore = git(root, 'rev-parse', 'HEAD').trim();

    const result = (await vscode.commands.executeCommand('repoWiki.commit')) as { commit: string; files: string[] };
    assert.ok(result, 'the command returned a commit');
    assert.equal(git(root, 'rev-parse', 'HEAD~1').trim(), headBefore);
    const committed = git(root, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    assert.ok(committed.every((file) => file.startsWith('.wiki/')), committed.join(', '));
    assert.match(git(root, 'log', '-1', '--format=%B'), /^wiki: init/);
    assert.equal(git(root, 'status', '--porcelain', '--', '.', ':!.wiki', ':!.vscode'), before);
    await vscode.workspace.getConfiguration('repoWiki.commit').update('editMessage', undefined, vscode.ConfigurationTarget.Workspace);
  });
});
