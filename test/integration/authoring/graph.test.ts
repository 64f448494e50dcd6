import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import MarkdownIt from 'markdown-it';
import * as vscode from 'vscode';
import type { RepoWikiApi } from '../../../src/extension';
import type { GraphRender } from '../../../src/vscode/graph/graphPanel';
import { activateExtension, EXTENSION_ID, waitFor, workspaceRoot } from '../helpers';

interface GraphHooks {
  panel(root: string): vscode.WebviewPanel | undefined;
  receive(root: string, raw: unknown): Promise<void> | undefined;
  onDidRender: vscode.Event<GraphRender>;
}

// Runs on a copy of demo/ after authoring.test.ts (which renamed request-pipeline to the-pipeline).
describe('Wiki graph, markdown preview links and the walkthrough in a real VS Code extension host', () => {
  let root: string;
  let api: RepoWikiApi;
  let graph: GraphHooks;
  const renders: GraphRender[] = [];
  const pagesDir = () => path.join(root, '.wiki', 'pages');
  const pageCount = () => fs.readdirSync(pagesDir()).filter((name) => name.endsWith('.md')).length;

  before(async () => {
    root = workspaceRoot();
    api = await activateExtension();
    graph = api.hooks.graph as GraphHooks;
    graph.onDidRender((render) => renders.push(render));
  });

  it('"Show wiki graph" opens a webview panel that draws every page', async () => {
    await vscode.commands.executeCommand('repoWiki.showGraph');
    const panel = graph.panel(root);
    assert.equal(panel?.viewType, 'repoWiki.graph');
    assert.ok(panel.visible && panel.active);
    await waitFor('the graph tab', () => vscode.window.tabGroups.all.flatMap((group) => group.tabs).some((tab) => tab.label === `Wiki graph: ${path.basename(root)}`));
    // The webview reports its first frame once force-graph has drawn the nodes the host sent.
    const first = await waitFor('the graph to draw', () => renders.find((render) => render.wiki === root), 30000);
    assert.equal(first.nodes, pageCount());
    // Asking again shows the same panel.
    await vscode.commands.executeCommand('repoWiki.showGraph');
    assert.equal(graph.panel(root), panel);
    assert.equal(vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.label.startsWith('Wiki graph')).length, 1);
  });

  it('redraws when a page is added', async () => {
    const before = renders.length;
    fs.writeFileSync(path.join(pagesDir(), 'graph-newcomer.md'), '---\ntitle: Newcomer\ntopic: gotchas\nsummary: Added while the graph is open.\nstatus: stale\ntags: []\ncreated: 2026-11-24\nupdated: 2026-11-24\n---\nSee [[router-trailing-slashes]].\n');
    const redraw = await waitFor('a redraw with the new page', () => renders.slice(before).find((render) => render.nodes === pageCount()), 30000);
    assert.equal(redraw.nodes, pageCount());
  });

  it('opens a page the webview names by slug, and nothing for anything else', async () => {
    await graph.receive(root, { type: 'openPage', slug: 'router-trailing-slashes' });
    await waitFor('the page in an editor', () => vscode.window.activeTextEditor?.document.uri.fsPath === path.join(pagesDir(), 'router-trailing-slashes.md'));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    const openEditors = () => vscode.window.tabGroups.all.flatMap((group) => group.tabs).length;
    const tabsBefore = openEditors();
    for (const raw of [
      { type: 'openPage', slug: 'no-such-page' },
      { type: 'openPage', slug: '../../package' },
      { type: 'openPage', slug: 'router-trailing-slashes', path: '/etc/passwd' },
      { type: 'runCommand', command: 'workbench.action.terminal.new' },
    ]) await graph.receive(root, raw);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(openEditors(), tabsBefore);
    assert.ok(!vscode.window.activeTextEditor || !vscode.window.activeTextEditor.document.uri.fsPath.endsWith('package.json'));
  });

  it('links [[slugs]] and citations in the markdown preview, relative to the page', () => {
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON.contributes['markdown.markdownItPlugins'], true);
    const md = api.extendMarkdownIt(new MarkdownIt());
    const page = vscode.Uri.file(path.join(pagesDir(), 'middleware-conventions.md'));
    const html = md.render('See [[the-pipeline|the pipeline]] and `src/todos.ts:TodoStore.complete`.', { currentDocument: page });
    assert.match(html, /<a href="the-pipeline\.md"[^>]*>the pipeline<\/a>/);
    assert.match(html, /<a href="\.\.\/\.\.\/src\/todos\.ts"[^>]*><code>src\/todos\.ts:TodoStore\.complete<\/code><\/a>/);
    // A file outside any workspace folder keeps its brackets.
    assert.match(md.render('[[the-pipeline]]', { currentDocument: vscode.Uri.file('/tmp/elsewhere.md') }), /\[\[the-pipeline\]\]/);
  });

  it('contributes the Get started walkthrough: every step has media and completes on an event, and its links name real commands', async () => {
    const packageJSON = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { walkthroughs: { id: string; steps: { id: string; description: string; media: { markdown: string }; completionEvents: string[] }[] }[] }; extensionPath?: string };
    const [walkthrough] = packageJSON.contributes.walkthroughs;
    assert.deepEqual(walkthrough.steps.map((step) => step.id), ['init', 'ingest', 'ask', 'fileBack', 'drift']);
    const extensionPath = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const commands = new Set(await vscode.commands.getCommands(true));
    for (const step of walkthrough.steps) {
      assert.ok(step.completionEvents.length > 0, step.id);
      assert.ok(fs.existsSync(path.join(extensionPath, step.media.markdown)), step.media.markdown);
      for (const [, command] of step.description.matchAll(/\(command:([\w.]+)\)/g)) assert.ok(commands.has(command), `${step.id}: ${command}`);
    }
    await vscode.commands.executeCommand('repoWiki.getStarted');
    await waitFor('the walkthrough tab', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label.match(/Welcome|Walkthrough/));
  });
});
