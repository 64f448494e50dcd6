import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DriftService } from '../../../src/vscode/drift/driftService';
import { activateExtension, waitFor, workspaceRoot } from '../helpers';

// Runs on a copy of demo/: its todos.ts changed after the pages were stamped, so two citations
// have drifted (signature-changed on one page, body-changed on another) and the rest match.
describe('Drift detection in a real VS Code extension host', () => {
  let root: string;
  const file = (rel: string) => path.join(root, rel);
  const pageUri = (slug: string) => vscode.Uri.file(file(`.wiki/pages/${slug}.md`));
  const driftOn = (slug: string, code?: string) =>
    vscode.languages.getDiagnostics(pageUri(slug)).filter((d) => d.source === 'repo-wiki' && (code ? d.code === code : /^(missing-|moved-|renamed-|signature-|type-|body-|unverified|outside-|unreadable-)/.test(String(d.code))));
  const waitForDrift = (slug: string, code: string, citation?: string) =>
    waitFor(`${code} on ${slug}`, () => driftOn(slug, code).find((d) => !citation || d.message.includes(citation)) ?? false, 20000);
  const waitForNoDrift = (slug: string, code: string) => waitFor(`no ${code} on ${slug}`, () => driftOn(slug, code).length === 0, 20000);

  /** Edits a file in its editor and saves it, as a user does; a save the workbench turns down (it can, under load) is tried again. */
  async function editAndSave(rel: string, edit: (text: string) => string): Promise<void> {
    const document = await vscode.workspace.openTextDocument(file(rel));
    const wanted = edit(document.getText());
    assert.notEqual(wanted, document.getText(), `the edit changes ${rel}`);
    await waitFor(`${rel} saved with the edit`, async () => {
      if (document.getText() !== wanted) {
        const workspaceEdit = new vscode.WorkspaceEdit();
        workspaceEdit.replace(document.uri, new vscode.Range(0, 0, document.lineCount, 0), wanted);
        assert.ok(await vscode.workspace.applyEdit(workspaceEdit));
      }
      if (document.isDirty) await document.save();
      return fs.readFileSync(file(rel), 'utf8') === wanted;
    });
  }

  /**
   * The quick fixes the light bulb offers on a diagnostic's range (the page must be open, as it is
   * for a user), once one titled `wanted…` is among them.
   */
  async function quickFixes(uri: vscode.Uri, diagnostic: vscode.Diagnostic, wanted: string): Promise<vscode.CodeAction[]> {
    await vscode.window.showTextDocument(uri, { preview: false });
    // A freshly opened editor can cancel a request, or answer before the latest check is in: ask again.
    return waitFor(`a "${wanted}" quick fix`, async () => {
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, diagnostic.range, vscode.CodeActionKind.QuickFix.value)
        .then((found) => found, (error: Error) => (error.name === 'Canceled' ? [] : Promise.reject(error)));
      return actions.some((action) => action.title.startsWith(wanted)) ? actions : undefined;
    });
  }

  async function apply(action: vscode.CodeAction): Promise<void> {
    assert.ok(action.command, `${action.title} runs a command`);
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  }

  before(async () => {
    root = workspaceRoot();
    await activateExtension();
  });

  it('shows drifted citations in the Problems panel on the citation, and nothing for matching ones', async () => {
    const signature = await waitForDrift('errors-become-responses-at-the-edge', 'signature-changed');
    const text = fs.readFileSync(pageUri('errors-become-responses-at-the-edge').fsPath, 'utf8').split('\n');
    const line = text.findIndex((l) => l.includes('`src/todos.ts:TodoStore.complete`'));
    assert.equal(signature.range.start.line, line);
    assert.equal(signature.range.start.character, text[line].indexOf('src/todos.ts:TodoStore.complete'));
    assert.equal(signature.range.end.character - signature.range.start.character, 'src/todos.ts:TodoStore.complete'.length);
    assert.equal(signature.severity, vscode.DiagnosticSeverity.Warning);
    const body = await waitForDrift('testing-handlers-in-process', 'body-changed', 'TodoStore');
    assert.equal(body.severity, vscode.DiagnosticSeverity.Information);
    for (const slug of ['request-pipeline', 'middleware-conventions', 'header-names-are-lower-cased', 'router-trailing-slashes']) {
      assert.deepEqual(driftOn(slug).map((d) => d.message), [], slug);
    }
    assert.equal(driftOn('errors-become-responses-at-the-edge').length, 1);
  });

  it('"Mark as reviewed" re-stamps the anchor, logs a stamp and clears the diagnostic', async () => {
    const uri = pageUri('errors-become-responses-at-the-edge');
    const diagnostic = await waitForDrift('errors-become-responses-at-the-edge', 'signature-changed');
    const fixes = await quickFixes(uri, diagnostic, 'Mark as reviewed');
    const titles = fixes.map((f) => f.title);
    assert.ok(titles.includes('Open TodoStore.complete'), titles.join(', '));
    assert.ok(titles.includes('Mark page as stale…'), titles.join(', '));
    const review = fixes.find((f) => f.title.startsWith('Mark as reviewed'));
    assert.ok(review, titles.join(', '));
    const anchorBefore = /"src\/todos.ts:TodoStore.complete": "([^"]+)"/.exec(fs.readFileSync(uri.fsPath, 'utf8'))?.[1];
    await apply(review);
    await waitForNoDrift('errors-become-responses-at-the-edge', 'signature-changed');
    const anchorAfter = /"src\/todos.ts:TodoStore.complete": "([^"]+)"/.exec(fs.readFileSync(uri.fsPath, 'utf8'))?.[1];
    assert.ok(anchorAfter && anchorAfter !== anchorBefore, `anchor re-stamped (${anchorBefore} → ${anchorAfter})`);
    const log = fs.readFileSync(file('.wiki/log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual({ ...log.at(-1), ts: undefined }, { ts: undefined, op: 'stamp', pages: ['errors-become-responses-at-the-edge'], citations: ['src/todos.ts:TodoStore.complete'] });
  });

  it('"Show what changed" opens a diff of the cited code at the commit the review recorded, against now', async () => {
    const uri = pageUri('errors-become-responses-at-the-edge');
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    assert.match(fs.readFileSync(uri.fsPath, 'utf8'), new RegExp(`"src/todos.ts:TodoStore.complete": "sig:[0-9a-f]{8} body:[0-9a-f]{8} at:${head.slice(0, 12)}"`), 'the review recorded HEAD');
    const original = fs.readFileSync(file('src/todos.ts'), 'utf8');
    await editAndSave('src/todos.ts', (text) => text.replace('    todo.done = done;\n', '    todo.done = done;\n    todo.updated = Date.now();\n'));
    const changed = await waitForDrift('errors-become-responses-at-the-edge', 'body-changed', 'TodoStore.complete');
    const fixes = await quickFixes(uri, changed, 'Show what changed');
    await apply(fixes.find((fix) => fix.title === 'Show what changed')!);
    const diff = await waitFor('the diff editor', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff && input.original.scheme === 'repo-wiki-cited' ? input : undefined;
    });
    const before = (await vscode.workspace.openTextDocument(diff.original)).getText();
    const after = (await vscode.workspace.openTextDocument(diff.modified)).getText();
    assert.match(before, /^  complete\(id: number, done = true\): Todo \{/);
    assert.ok(!before.includes('todo.updated') && after.includes('todo.updated = Date.now();'), 'then without the new line, now with it');
    assert.ok(!after.includes('remove(id: number)'), 'only the cited symbol, not the rest of the file');
    assert.equal(diff.original.path, `/${head.slice(0, 12)}/src/todos.ts`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await editAndSave('src/todos.ts', () => original);
    await waitForNoDrift('errors-become-responses-at-the-edge', 'body-changed');
  });

  it('a symbol renamed and rewritten becomes missing-symbol when the file is saved, and clears when restored', async () => {
    const rewrite = (text: string) => text.replace('export function isHttpError(', 'export function isHttpFailure(').replace('return value instanceof HttpError;', 'return value instanceof Error;');
    const original = fs.readFileSync(file('src/errors.ts'), 'utf8');
    await editAndSave('src/errors.ts', rewrite);
    const missing = await waitForDrift('errors-become-responses-at-the-edge', 'missing-symbol', 'isHttpError');
    assert.equal(missing.severity, vscode.DiagnosticSeverity.Error);
    assert.deepEqual(driftOn('errors-become-responses-at-the-edge').map((d) => d.code), ['missing-symbol'], 'only that citation drifts');
    await editAndSave('src/errors.ts', () => original);
    await waitForNoDrift('errors-become-responses-at-the-edge', 'missing-symbol');
  });

  it('a renamed symbol is renamed-symbol, and "Update citation" points the page at the new name', async () => {
    await editAndSave('src/errors.ts', (text) => text.replace('export function isHttpError(', 'export function isHttpFailure('));
    const renamed = await waitForDrift('errors-become-responses-at-the-edge', 'renamed-symbol', 'isHttpError');
    assert.equal(renamed.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(renamed.message, /was renamed to isHttpFailure/);
    const actions = await quickFixes(pageUri('errors-become-responses-at-the-edge'), renamed, 'Update citation to isHttpFailure');
    await apply(actions.find((action) => action.title === 'Update citation to isHttpFailure')!);
    await waitForNoDrift('errors-become-responses-at-the-edge', 'renamed-symbol');
    const page = fs.readFileSync(file('.wiki/pages/errors-become-responses-at-the-edge.md'), 'utf8');
    assert.ok(page.includes('`src/errors.ts:isHttpFailure`') && !page.includes('isHttpError`'), 'the citation follows the rename');
    await waitFor('no drift on the page', () => driftOn('errors-become-responses-at-the-edge').length === 0);
  });

  it('a symbol moved to another file is found, and the quick fix updates the citation', async () => {
    const moved = 'export function splitPath(path: string): string[] {\n  return path.split(\'?\')[0].split(\'/\').filter((segment) => segment.length > 0);\n}\n';
    fs.writeFileSync(file('src/paths.ts'), `/** Path helpers. */\n${moved}`);
    await editAndSave('src/router.ts', (text) => {
      const start = text.indexOf('/** Splits a path');
      const end = text.indexOf('}\n', text.indexOf('export function splitPath')) + 2;
      return `import { splitPath } from './paths';\n${text.slice(0, start)}${text.slice(end)}`;
    });
    const uri = pageUri('router-trailing-slashes');
    const diagnostic = await waitForDrift('router-trailing-slashes', 'moved-symbol', 'splitPath');
    assert.match(diagnostic.message, /now declared in src\/paths\.ts/);
    const update = (await quickFixes(uri, diagnostic, 'Update citation')).find((f) => f.title === 'Update citation to src/paths.ts:splitPath');
    assert.ok(update, 'an "Update citation" quick fix');
    assert.equal(update.isPreferred, true);
    await apply(update);
    await waitForNoDrift('router-trailing-slashes', 'moved-symbol');
    const page = fs.readFileSync(uri.fsPath, 'utf8');
    assert.match(page, /`src\/paths\.ts:splitPath`/);
    assert.doesNotMatch(page, /src\/router\.ts:splitPath/);
    assert.deepEqual(driftOn('router-trailing-slashes').map((d) => d.message), [], 'the moved code is unchanged, so the carried anchor still matches');
  });

  it('re-checks a page when it is edited: new citations are unverified, escaping paths are flagged', async () => {
    const uri = pageUri('middleware-conventions');
    await editAndSave('.wiki/pages/middleware-conventions.md', (text) => `${text}\nAlso see \`src/types.ts:Method\` and \`../secrets.ts\`.\n`);
    const unverified = await waitForDrift('middleware-conventions', 'unverified', 'src/types.ts:Method');
    assert.equal(unverified.severity, vscode.DiagnosticSeverity.Information);
    const outside = await waitForDrift('middleware-conventions', 'outside-workspace', '../secrets.ts');
    assert.equal(outside.severity, vscode.DiagnosticSeverity.Error);
    const titles = (await quickFixes(uri, unverified, 'Mark as reviewed')).map((f) => f.title);
    assert.ok(titles.some((t) => t.startsWith('Mark as reviewed')), titles.join(', '));
  });

  it('re-checks unsaved edits as the user types, at the edited positions', async () => {
    const uri = pageUri('header-names-are-lower-cased');
    const editor = await vscode.window.showTextDocument(uri, { preview: false });
    const line = editor.document.lineCount - 1; // the empty line after the final newline
    assert.equal(editor.document.lineAt(line).text, '');
    await editor.edit((edit) => edit.insert(new vscode.Position(line, 0), 'Typed: `src/types.ts:HttpRequest`\n'));
    const unverified = await waitForDrift('header-names-are-lower-cased', 'unverified', 'src/types.ts:HttpRequest');
    assert.equal(unverified.range.start.line, line);
    assert.equal(unverified.range.start.character, 'Typed: `'.length);
    assert.ok(editor.document.isDirty, 'checked without saving');
    await editor.edit((edit) => edit.delete(new vscode.Range(line, 0, line + 1, 0)));
    await waitForNoDrift('header-names-are-lower-cased', 'unverified');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  it('severities follow repoWiki.drift.severities, and "off" hides a code', async () => {
    const config = vscode.workspace.getConfiguration('repoWiki.drift');
    await config.update('severities', { 'body-changed': 'error', unverified: 'off' }, vscode.ConfigurationTarget.Workspace);
    try {
      await waitFor('body-changed as an error', () => driftOn('testing-handlers-in-process', 'body-changed')[0]?.severity === vscode.DiagnosticSeverity.Error);
      await waitForNoDrift('middleware-conventions', 'unverified');
    } finally {
      await config.update('severities', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await waitForDrift('middleware-conventions', 'unverified');
  });

  it('"Stamp all citations on this page" clears unverified citations', async () => {
    const result = await vscode.commands.executeCommand<{ stamped: string[]; unresolved: string[] }>('repoWiki.stampPage', pageUri('middleware-conventions'));
    assert.ok(result.stamped.includes('src/types.ts:Method'), result.stamped.join(', '));
    const page = fs.readFileSync(pageUri('middleware-conventions').fsPath, 'utf8');
    for (const citation of result.stamped) assert.match(page, new RegExp(`"${citation.replace(/[.]/g, '\\.')}": "[^"]* at:[0-9a-f]{12}"`), `${citation} records the commit it was reviewed at`);
    assert.deepEqual(result.unresolved, ['../secrets.ts']);
    await waitForNoDrift('middleware-conventions', 'unverified');
  });

  it('"Check drift in the whole wiki" reports what it found', async () => {
    const result = await vscode.commands.executeCommand<{ issues: number; cancelled: boolean }>('repoWiki.checkDrift');
    assert.equal(result.cancelled, false);
    const remaining = ['errors-become-responses-at-the-edge', 'testing-handlers-in-process', 'middleware-conventions', 'router-trailing-slashes'].flatMap((slug) => driftOn(slug).map((d) => `${slug}: ${d.code}`));
    assert.deepEqual(remaining, ['testing-handlers-in-process: body-changed', 'middleware-conventions: outside-workspace']);
    assert.equal(result.issues, 2);
  });

  it('"Open the cited symbol" reveals its declaration', async () => {
    await vscode.commands.executeCommand('repoWiki.openCitation', pageUri('errors-become-responses-at-the-edge'), 'src/errors.ts:toErrorResponse');
    const editor = await waitFor('errors.ts in the editor', () => vscode.window.activeTextEditor?.document.uri.fsPath === file('src/errors.ts') && vscode.window.activeTextEditor);
    assert.match(editor.document.lineAt(editor.selection.active.line).text, /function toErrorResponse/);
  });

  it('a page saved on disk re-checks that page, never the whole wiki; a saved source file is one request to the worker', async () => {
    const drift = (await activateExtension()).hooks.drift as DriftService;
    const checks: Array<string[] | undefined> = [];
    const sourceChanges: string[][] = [];
    const { check, sourcesChanged } = drift;
    drift.check = (wiki, options) => (checks.push(options?.slugs), check.call(drift, wiki, options));
    drift.sourcesChanged = (wiki, paths, listChanged) => (sourceChanges.push(paths), sourcesChanged.call(drift, wiki, paths, listChanged));
    try {
      const page = file('.wiki/pages/router-trailing-slashes.md');
      fs.appendFileSync(page, '\nOne more line.\n');
      await waitFor('the saved page re-checked', () => checks.some((slugs) => slugs?.join() === 'router-trailing-slashes'));
      assert.ok(!checks.includes(undefined), 'a page save never re-checks the whole wiki');

      await editAndSave('src/errors.ts', (text) => `${text}\n// touched\n`);
      await waitFor('one request for the saved source', () => sourceChanges.some((paths) => paths.includes('src/errors.ts')));
      assert.ok(!checks.includes(undefined), 'a source save never re-checks the whole wiki');
    } finally {
      drift.check = check;
      drift.sourcesChanged = sourcesChanged;
    }
  });

  it('with repoWiki.drift.semantic on, the worker type-checks: a review records each cited symbol\'s type', async () => {
    const config = vscode.workspace.getConfiguration('repoWiki.drift');
    await config.update('semantic', true, vscode.ConfigurationTarget.Workspace);
    try {
      const result = await vscode.commands.executeCommand<{ stamped: string[] }>('repoWiki.stampPage', pageUri('request-pipeline'));
      assert.ok(result.stamped.length > 0);
      const page = fs.readFileSync(pageUri('request-pipeline').fsPath, 'utf8');
      const typed = [...page.matchAll(/": "sig:[0-9a-f]{8} (?:body|shape):[0-9a-f]{8} type:[0-9a-f]{8}/g)];
      assert.ok(typed.length > 0, 'symbol anchors carry their type');
      assert.deepEqual(driftOn('request-pipeline'), [], 'and match it');
    } finally {
      await config.update('semantic', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('a Python citation drifts in the Problems panel, and a renamed method offers "Update citation"', async () => {
    fs.mkdirSync(file('app'), { recursive: true });
    fs.writeFileSync(file('app/models.py'), 'class User:\n    def save(self, db):\n        """Writes the user."""\n        return db.put(self)\n\n    def load(self, db):\n        return db.get(self)\n');
    fs.writeFileSync(pageUri('python-models').fsPath, ['---', 'title: Python models', 'topic: architecture', 'summary: The Python side.', 'status: active', 'created: 2026-11-01', 'updated: 2026-11-01', '---',
      'Users are written by `app/models.py:User.save` and read by `app/models.py:User.load`. See [[request-pipeline]].', ''].join('\n'));
    await waitForDrift('python-models', 'unverified', 'User.save');
    const stamped = await vscode.commands.executeCommand<{ stamped: string[] }>('repoWiki.stampPage', pageUri('python-models'));
    assert.deepEqual(stamped.stamped.sort(), ['app/models.py:User.load', 'app/models.py:User.save']);
    await waitForNoDrift('python-models', 'unverified');

    await editAndSave('app/models.py', (text) => text.replace('return db.get(self)', 'return db.get(self, fresh=True)'));
    await waitForDrift('python-models', 'body-changed', 'User.load');
    await editAndSave('app/models.py', (text) => text.replace('def save(self, db):', 'def persist(self, db):'));
    const renamed = await waitForDrift('python-models', 'renamed-symbol', 'User.save');
    assert.match(renamed.message, /renamed to User\.persist/);
    const actions = await quickFixes(pageUri('python-models'), renamed, 'Update citation to User.persist');
    await apply(actions.find((action) => action.title === 'Update citation to User.persist')!);
    await waitForNoDrift('python-models', 'renamed-symbol');
    assert.match(fs.readFileSync(pageUri('python-models').fsPath, 'utf8'), /`app\/models\.py:User\.persist`/);
    assert.deepEqual(driftOn('python-models').map((d) => `${d.code}`), ['body-changed'], 'only the body change of User.load is left');
  });

  it('source files show "Cited by N wiki pages" lenses and a hover listing the pages', async () => {
    const uri = vscode.Uri.file(file('src/errors.ts'));
    const document = await vscode.workspace.openTextDocument(uri);
    const lenses = await waitFor('cited-by lenses', async () => {
      const found = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      const ours = found.filter((lens) => lens.command?.command === 'repoWiki.showCitingPages');
      return ours.length ? ours : undefined;
    });
    const classLine = document.getText().split('\n').findIndex((l) => l.startsWith('export class HttpError'));
    const onClass = lenses.find((lens) => lens.range.start.line === classLine);
    assert.equal(onClass?.command?.title, 'Cited by 2 wiki pages');
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(classLine + 3, 4));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n').replace(/&nbsp;/g, ' ');
    assert.match(text, /HttpError` is cited by/);
    assert.match(text, /Errors become responses at the edge/i);
    assert.match(text, /Writing middleware/);

    await vscode.workspace.getConfiguration('repoWiki.drift').update('codeLens', false, vscode.ConfigurationTarget.Workspace);
    try {
      const after = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      assert.equal(after.filter((lens) => lens.command?.command === 'repoWiki.showCitingPages').length, 0, 'lenses can be turned off');
    } finally {
      await vscode.workspace.getConfiguration('repoWiki.drift').update('codeLens', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
