import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RepoWikiApi } from '../../../src/extension';
import { PagesTreeProvider } from '../../../src/vscode/pages/pagesTree';
import { activateExtension, lintDiagnostics, waitFor } from '../helpers';

// This window is a multi-root workspace: the demo (with a wiki) and the fixture (without one).
describe('Multi-root workspace: each folder has its own wiki', () => {
  let api: RepoWikiApi;
  let withWiki: string;
  let without: string;
  const indexSlugs = (root: string) =>
    JSON.parse(fs.readFileSync(path.join(root, '.wiki', 'index.json'), 'utf8')).pages.map((p: { slug: string }) => p.slug);

  before(async () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 2, 'two workspace folders');
    [withWiki, without] = folders.map((folder) => folder.uri.fsPath);
    api = await activateExtension();
  });

  it('finds the wiki of the one folder that has it', async () => {
    assert.equal(api.services.wikis.all().length, 2);
    assert.deepEqual((await api.services.wikis.existing()).map((wiki) => wiki.root), [withWiki]);
    const tree = new PagesTreeProvider(api.services);
    const topics = (await tree.getChildren()).map((node) => tree.getTreeItem(node).label);
    assert.ok(topics.includes('Architecture'), topics.join(', '));
  });

  it('"Initialise wiki" creates the wiki in the active editor\'s folder and leaves the other alone', async () => {
    const demoIndex = fs.readFileSync(path.join(withWiki, '.wiki', 'index.json'), 'utf8');
    await vscode.window.showTextDocument(vscode.Uri.file(path.join(without, 'README.md')));
    const result = (await vscode.commands.executeCommand('repoWiki.init')) as { created: boolean };
    assert.equal(result.created, true);
    assert.ok(fs.existsSync(path.join(without, '.wiki', 'index.json')));
    assert.equal(fs.readFileSync(path.join(withWiki, '.wiki', 'index.json'), 'utf8'), demoIndex);
    assert.deepEqual(indexSlugs(without), ['how-to-write-pages', 'welcome']);
    assert.ok(!indexSlugs(withWiki).includes('welcome'));
  });

  it('the Pages tree shows one node per folder, each with its own pages', async () => {
    const tree = new PagesTreeProvider(api.services);
    await api.services.snapshots.reloadAll();
    const roots = await tree.getChildren();
    assert.deepEqual(roots.map((node) => tree.getTreeItem(node).label), [path.basename(withWiki), path.basename(without)]);
    const secondTopics = await tree.getChildren(roots[1]);
    assert.deepEqual(secondTopics.map((node) => tree.getTreeItem(node).label), ['Other']);
  });

  it('diagnostics stay with the folder whose page has the problem', async () => {
    const broken = vscode.Uri.file(path.join(withWiki, '.wiki', 'pages', 'testing-handlers-in-process.md'));
    await waitFor('the demo\'s broken link', () => lintDiagnostics(broken).some((d) => d.code === 'broken-link'));
    const welcome = vscode.Uri.file(path.join(without, '.wiki', 'pages', 'welcome.md'));
    fs.appendFileSync(welcome.fsPath, '\n[[request-pipeline]] lives in the other folder\'s wiki.\n');
    await waitFor('a broken link in the second wiki', () => lintDiagnostics(welcome).some((d) => d.code === 'broken-link'));
  });
});
