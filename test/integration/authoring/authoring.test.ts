import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, waitFor, workspaceRoot } from '../helpers';

// Runs on a copy of demo/: request-pipeline is linked from three pages; the pages cite src/todos.ts.
describe('Page authoring in a real VS Code extension host', () => {
  let root: string;
  let hooks: Record<string, unknown>;
  const pageFile = (slug: string) => path.join(root, '.wiki', 'pages', `${slug}.md`);
  const pageUri = (slug: string) => vscode.Uri.file(pageFile(slug));
  const positionOf = (document: vscode.TextDocument, needle: string, shift = 0) => {
    const offset = document.getText().indexOf(needle);
    assert.ok(offset >= 0, `${needle} is in ${document.uri.fsPath}`);
    return document.positionAt(offset + shift);
  };
  /** Asks a provider command until it answers (an editor just opened can cancel a request). */
  const ask = <T>(what: string, command: string, ...args: unknown[]) =>
    waitFor(what, async () => {
      const result = await vscode.commands.executeCommand<T>(command, ...args).then((r) => r, (error: Error) => (error.name === 'Canceled' ? undefined : Promise.reject(error)));
      return Array.isArray(result) && !result.length ? undefined : result;
    }, 20000);

  before(async () => {
    root = workspaceRoot();
    hooks = (await activateExtension()).hooks;
  });

  it('completes [[ with page slugs, and a backtick path with : with the symbols of the file', async () => {
    const document = await vscode.workspace.openTextDocument(pageUri('router-trailing-slashes'));
    const editor = await vscode.window.showTextDocument(document);
    const end = document.lineAt(document.lineCount - 1).range.end;
    await editor.edit((edit) => edit.insert(end, '\nSee [[midcon'));
    const links = await ask<vscode.CompletionList>('link completions', 'vscode.executeCompletionItemProvider', document.uri, document.lineAt(document.lineCount - 1).range.end, '[');
    const labels = links.items.map((item) => item.insertText);
    assert.equal(labels[0], 'middleware-conventions]]', labels.join(', '));
    await editor.edit((edit) => edit.insert(document.lineAt(document.lineCount - 1).range.end, ']] and `src/todos.ts:TodoStore.comp'));
    const symbols = await ask<vscode.CompletionList>('symbol completions', 'vscode.executeCompletionItemProvider', document.uri, document.lineAt(document.lineCount - 1).range.end, ':');
    assert.ok(symbols.items.some((item) => item.insertText === 'TodoStore.complete`'), symbols.items.map((item) => item.insertText).join(', '));
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('goes to the linked page, and to the cited symbol', async () => {
    const document = await vscode.workspace.openTextDocument(pageUri('router-trailing-slashes'));
    const toPage = await ask<vscode.Location[]>('a page definition', 'vscode.executeDefinitionProvider', document.uri, positionOf(document, '[[request-pipeline', 4));
    assert.equal(toPage[0].uri.fsPath, pageFile('request-pipeline'));
    const cited = await vscode.workspace.openTextDocument(pageUri('errors-become-responses-at-the-edge'));
    // The first mention is the anchor in the frontmatter; the citation is the one in backticks.
    const toCode = await ask<vscode.Location[]>('a citation definition', 'vscode.executeDefinitionProvider', cited.uri, positionOf(cited, '`src/todos.ts:TodoStore.complete`', 4));
    const code = fs.readFileSync(path.join(root, 'src/todos.ts'), 'utf8').split('\n');
    assert.equal(toCode[0].uri.fsPath, path.join(root, 'src/todos.ts'));
    assert.match(code[toCode[0].range.start.line], /complete\(/);
  });

  it('shows the cited code in a hover on a citation', async () => {
    const cited = await vscode.workspace.openTextDocument(pageUri('errors-become-responses-at-the-edge'));
    const hovers = await ask<vscode.Hover[]>('a citation hover', 'vscode.executeHoverProvider', cited.uri, positionOf(cited, '`src/todos.ts:TodoStore.complete`', 4));
    const text = hovers.flatMap((hover) => hover.contents.map((c) => (c as vscode.MarkdownString).value)).join('\n');
    assert.match(text, /```typescript\n[^`]*complete\(/);
  });

  it('lists the pages linking to a page from its title line (Shift+F12)', async () => {
    const document = await vscode.workspace.openTextDocument(pageUri('request-pipeline'));
    const references = await ask<vscode.Location[]>('references', 'vscode.executeReferenceProvider', document.uri, positionOf(document, 'title:'));
    const pagesDir = path.join(root, '.wiki', 'pages');
    const linking = fs.readdirSync(pagesDir).filter((name) => name !== 'request-pipeline.md' && fs.readFileSync(path.join(pagesDir, name), 'utf8').includes('[[request-pipeline'));
    assert.ok(linking.length >= 3);
    // The page itself is there too, as the declaration (the command asks for it).
    assert.deepEqual([...new Set(references.map((location) => path.basename(location.uri.fsPath)))].sort(), [...linking, 'request-pipeline.md'].sort());
  });

  it('renames a page with F2 on a link: every link follows, the index is rebuilt, the log gets a rename line', async () => {
    const document = await vscode.workspace.openTextDocument(pageUri('router-trailing-slashes'));
    await vscode.window.showTextDocument(document);
    const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>('vscode.executeDocumentRenameProvider', document.uri, positionOf(document, '[[request-pipeline', 5), 'pipeline-of-requests');
    assert.ok(edit);
    assert.ok(!fs.existsSync(pageFile('request-pipeline')));
    assert.ok(fs.existsSync(pageFile('pipeline-of-requests')));
    for (const slug of ['router-trailing-slashes', 'testing-handlers-in-process']) assert.match(fs.readFileSync(pageFile(slug), 'utf8'), /\[\[pipeline-of-requests\]\]/, slug);
    assert.match(fs.readFileSync(pageFile('middleware-conventions'), 'utf8'), /\[\[pipeline-of-requests\|pipeline\]\]/);
    assert.match(fs.readFileSync(path.join(root, '.wiki/index.json'), 'utf8'), /"slug": "pipeline-of-requests"/);
    assert.match(fs.readFileSync(path.join(root, '.wiki/log.jsonl'), 'utf8'), /"op":"rename".*"from":"request-pipeline","to":"pipeline-of-requests"/);
    await waitFor('the renamed page in the snapshot', async () => {
      const api = await activateExtension();
      const wiki = api.services.wikis.forUri(pageUri('router-trailing-slashes'))!;
      return (await api.services.snapshots.get(wiki)).pages.some((page) => page.slug === 'pipeline-of-requests');
    });
  });

  it('refuses a rename to a taken slug and changes nothing', async () => {
    const document = await vscode.workspace.openTextDocument(pageUri('router-trailing-slashes'));
    // The open editor reloads the page the rename rewrote on disk.
    await waitFor('the editor to show the renamed link', () => document.getText().includes('[[pipeline-of-requests'));
    const before = fs.readFileSync(pageFile('router-trailing-slashes'), 'utf8');
    await vscode.commands.executeCommand('vscode.executeDocumentRenameProvider', document.uri, positionOf(document, '[[pipeline-of-requests', 5), 'middleware-conventions');
    assert.match(String((hooks.authoring as { lastRenameRefusal(): string | undefined }).lastRenameRefusal()), /A page called "middleware-conventions" already exists/);
    await vscode.commands.executeCommand('vscode.executeDocumentRenameProvider', document.uri, positionOf(document, '[[pipeline-of-requests', 5), 'Not A Slug');
    assert.match(String((hooks.authoring as { lastRenameRefusal(): string | undefined }).lastRenameRefusal()), /Not a valid slug/);
    assert.equal(fs.readFileSync(pageFile('router-trailing-slashes'), 'utf8'), before);
    assert.ok(fs.existsSync(pageFile('pipeline-of-requests')));
  });

  it('follows a page file renamed in the Explorer: the links point at the new name', async () => {
    const edit = new vscode.WorkspaceEdit();
    edit.renameFile(pageUri('pipeline-of-requests'), pageUri('the-pipeline'));
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitFor('links updated after the file rename', () => /\[\[the-pipeline\]\]/.test(fs.readFileSync(pageFile('router-trailing-slashes'), 'utf8')), 20000);
    await (hooks.authoring as { explorerRenames(): Promise<unknown> }).explorerRenames();
    assert.match(fs.readFileSync(pageFile('middleware-conventions'), 'utf8'), /\[\[the-pipeline\|pipeline\]\]/);
    assert.match(fs.readFileSync(path.join(root, '.wiki/log.jsonl'), 'utf8'), /"op":"rename".*"to":"the-pipeline".*"via":"file-move"/);
  });
});
