import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RepoWikiApi } from '../../../src/extension';
import type { IngestHooks } from '../../../src/vscode/ingest/ingestFeature';
import type { LibrarianLintHooks } from '../../../src/vscode/lint/librarianLint';
import { activateExtension, startMockAnthropic, waitFor, workspaceRoot, type MockAnthropic, type MockRequest } from '../helpers';

const API_KEY = 'sk-ant-lint-test-key';
// The least recently updated active page of the demo (the ingest tests touch the others), so it is checked first.
const PAGE = 'middleware-conventions';

describe('Librarian lint through the real SDK and the mock Messages API', () => {
  let root: string;
  let api: RepoWikiApi;
  let mock: MockAnthropic;
  const lint = () => vscode.workspace.getConfiguration('repoWiki.lint.llm');
  const llm = () => vscode.workspace.getConfiguration('repoWiki.llm');
  const pageUri = (slug: string) => vscode.Uri.file(path.join(root, '.wiki', 'pages', `${slug}.md`));
  const librarianDiagnostics = (slug: string) => vscode.languages.getDiagnostics(pageUri(slug)).filter((d) => String(d.code).startsWith('lint:'));

  before(async () => {
    root = workspaceRoot();
    api = await activateExtension();
    mock = await startMockAnthropic({ validKey: API_KEY });
    await llm().update('baseUrl', mock.url, vscode.ConfigurationTarget.Global);
    process.env.ANTHROPIC_API_KEY = API_KEY;
    // The demo's pages were updated days ago, within the default minAgeDays: these tests check them all.
    await lint().update('minAgeDays', 0, vscode.ConfigurationTarget.Workspace);
  });

  after(async () => {
    (api.hooks.ingest as IngestHooks).setChangeChooser(undefined);
    delete process.env.ANTHROPIC_API_KEY;
    for (const key of ['maxPages', 'maxTokens', 'enabled', 'minAgeDays']) await lint().update(key, undefined, vscode.ConfigurationTarget.Workspace);
    await llm().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await mock?.close();
  });

  it('publishes lint: diagnostics on the quoted text, writes the report and logs the tokens; the page cap holds', async () => {
    await lint().update('maxPages', 2, vscode.ConfigurationTarget.Workspace);
    mock.script((body: MockRequest['body']) => {
      const slugs = [...body.messages[0].content.matchAll(/<page slug="([^"]+)"/g)].map((m) => m[1]);
      return {
        text: JSON.stringify({
          findings: slugs.includes(PAGE) ? [{
            kind: 'unsupported-claim', page: PAGE, quote: 'never a mutated original', severity: 'warning', related: ['request-pipeline'],
            message: 'requestTimeout now mutates the request it is given.',
            fix: { pages: [], corroborate: [], links: [{ from: PAGE, to: 'router-trailing-slashes' }] },
          }] : [],
        }),
        usage: { input_tokens: 4200, output_tokens: 180 },
      };
    });
    const result = await vscode.commands.executeCommand<{ findings: number; pages: number }>('repoWiki.lintWithLibrarian');
    assert.deepEqual(result, { findings: 1, pages: 2 });
    const sent = mock.requests.at(-1)!.body.messages[0].content;
    assert.equal([...sent.matchAll(/<page slug=/g)].length, 2, 'only maxPages pages are sent');
    assert.match(sent, /<code citation="src\/middleware.ts:requireJson">\n[^<]*requireJson/, 'the current code of cited symbols is sent');

    const [diagnostic] = librarianDiagnostics(PAGE);
    assert.equal(diagnostic.code, 'lint:unsupported-claim');
    assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Warning);
    const document = await vscode.workspace.openTextDocument(pageUri(PAGE));
    assert.equal(document.getText(diagnostic.range), 'never a mutated original');

    const report = (api.hooks.librarianLint as LibrarianLintHooks).lastReport(root)!;
    assert.equal(report.pagesSkipped.length > 0, true);
    await vscode.commands.executeCommand('repoWiki.openLintReport');
    const reportText = vscode.window.activeTextEditor!.document.getText();
    assert.match(reportText, /Tokens: 4,200 input of a 30,000 budget/);
    assert.match(reportText, /Pages checked: 2 \(cap 2/);
    assert.match(reportText, /unsupported-claim/);
    const entry = JSON.parse(fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').at(-1)!);
    assert.deepEqual([entry.op, entry.findings, entry.tokens], ['lint', 1, { input: 4200, output: 180 }]);
  });

  it('offers the fix as a quick fix and applies it through the ingest review', async () => {
    const [diagnostic] = librarianDiagnostics(PAGE);
    const actions = await waitFor('the librarian fix to be offered', async () => {
      const found = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', pageUri(PAGE), diagnostic.range);
      return found.find((a) => a.title === 'Review the librarian\'s fix…');
    });
    let reviewed: string[] = [];
    (api.hooks.ingest as IngestHooks).setChangeChooser(async (changes) => (reviewed = changes.map((c) => `${c.kind}:${c.slug}`), changes.map((c) => c.slug)));
    await vscode.commands.executeCommand(actions.command!.command, ...actions.command!.arguments!);
    assert.deepEqual(reviewed, [`link:${PAGE}`]);
    assert.match(fs.readFileSync(pageUri(PAGE).fsPath, 'utf8'), /## Related\n\n- \[\[router-trailing-slashes\]\]/);
  });

  it('for upkeep, runs for the named wiki in the background, leaving out pages newer than minAgeDays', async () => {
    await lint().update('minAgeDays', 3650, vscode.ConfigurationTarget.Workspace);
    const before = mock.requests.length;
    const result = await vscode.commands.executeCommand<{ findings: number; pages: number }>('repoWiki.lintWithLibrarian', { root, background: true });
    assert.deepEqual(result, { findings: 0, pages: 0 });
    assert.equal(mock.requests.length, before, 'every demo page is newer than ten years: nothing is sent');
    const report = (api.hooks.librarianLint as LibrarianLintHooks).lastReport(root)!;
    assert.ok(report.pagesTooNew.includes(PAGE));
    await lint().update('minAgeDays', 0, vscode.ConfigurationTarget.Workspace);
  });

  it('spends nothing past the token budget', async () => {
    await lint().update('maxTokens', 2000, vscode.ConfigurationTarget.Workspace);
    const before = mock.requests.length;
    const result = await vscode.commands.executeCommand<{ findings: number; pages: number }>('repoWiki.lintWithLibrarian');
    assert.deepEqual(result, { findings: 0, pages: 0 });
    assert.equal(mock.requests.length, before);
    await lint().update('maxTokens', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('"Lint wiki" runs the librarian too when repoWiki.lint.llm.enabled is on', async () => {
    await lint().update('enabled', true, vscode.ConfigurationTarget.Workspace);
    const before = mock.requests.length;
    let flagged = '';
    mock.script((body: MockRequest['body']) => {
      const [, slug, firstLine] = /<page slug="([^"]+)"[^>]*>\n+([^\n]+)/.exec(body.messages[0].content)!;
      flagged = slug;
      return { text: JSON.stringify({ findings: [{ kind: 'missing-page', page: slug, quote: firstLine.trim(), severity: 'info', message: 'Found by the pass that "Lint wiki" started.' }] }) };
    });
    await vscode.commands.executeCommand('repoWiki.lint');
    await waitFor('the librarian request', () => mock.requests.length > before);
    const diagnostic = await waitFor('the finding in the Problems panel', () => librarianDiagnostics(flagged).find((d) => d.message.includes('Found by the pass that "Lint wiki" started.')));
    assert.equal(diagnostic.code, 'lint:missing-page');
    assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Information);
  });

  it('"Fix safe lint problems" unlinks a deleted page', async () => {
    const gone = path.join(root, '.wiki', 'pages', 'topic-two.md');
    if (!fs.existsSync(gone)) fs.writeFileSync(gone, fs.readFileSync(pageUri('request-pipeline').fsPath, 'utf8').replace(/^title: .*$/m, 'title: Topic two'));
    await vscode.commands.executeCommand('repoWiki.rebuildIndex');
    fs.appendFileSync(pageUri('middleware-conventions').fsPath, '\nSee also [[topic-two|the second topic]].\n');
    fs.appendFileSync(path.join(root, '.wiki', 'log.jsonl'), '{"ts":"2026-11-22T00:00:00Z","op":"new-page","pages":["topic-two"]}\n');
    fs.rmSync(gone);
    const result = await vscode.commands.executeCommand<{ unlinked: { slug: string; targets: string[] }[] }>('repoWiki.lintFix', { confirm: false });
    assert.deepEqual(result?.unlinked, [{ slug: 'middleware-conventions', targets: ['topic-two'] }]);
    assert.match(fs.readFileSync(pageUri('middleware-conventions').fsPath, 'utf8'), /See also the second topic\./);
  });
});
