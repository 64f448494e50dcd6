import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, waitFor, workspaceRoot } from '../helpers';

// Runs twice on the hostile repository of test/harness/hostileRepo.cjs (FIFOs, devices, links out of
// the workspace, a 3 GB file, a 3 MB SCHEMA.md): as the 'hostile' suite in a trusted window and as
// 'hostile-restricted' in Restricted Mode. run-all passes the repository's description in
// REPO_WIKI_HOSTILE. Every command is raced against a time limit, so a hang fails by name.

interface HostileRepo {
  root: string;
  outsideDir: string;
  badPages: { path: string; code: string }[];
  badCitations: { citation: string; code: string }[];
  citationsPage: string;
  validCitation: string;
  canaries: string[];
}

const trusted = process.env.REPO_WIKI_TEST_SUITE !== 'hostile-restricted';

function findUp(relative: string): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, relative))) return path.join(dir, relative);
  }
  throw new Error(`${relative} not found`);
}

const { snapshotOutside } = require(findUp('test/harness/hostileRepo.cjs')) as { snapshotOutside(dir: string): Record<string, string> };

/** `work`, or a failure naming it when it takes longer than `ms`. */
async function within<T>(what: string, ms: number, work: Thenable<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve(work),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe(`A hostile repository in a ${trusted ? 'trusted window' : 'Restricted Mode window'}`, () => {
  const raw = process.env.REPO_WIKI_HOSTILE;
  let repo: HostileRepo;
  let root: string;
  let outsideBefore: Record<string, string>;
  const uri = (rel: string) => vscode.Uri.file(path.join(root, rel));
  const ours = (d: vscode.Diagnostic) => d.source === 'repo-wiki';
  const diagnosticOn = (rel: string, code: string, text?: string) =>
    vscode.languages.getDiagnostics(uri(rel)).find((d) => ours(d) && d.code === code && (!text || d.message.includes(text)));
  /** Waits for the diagnostic; on timeout, says what the file has instead. */
  const waitForDiagnostic = (rel: string, code: string, text?: string) =>
    waitFor(`${code}${text ? ` (${text})` : ''} on ${rel}`, () => diagnosticOn(rel, code, text) ?? false, 30000).catch((error: Error) => {
      const has = vscode.languages.getDiagnostics(uri(rel)).filter(ours).map((d) => `${d.code}: ${d.message}`);
      throw new Error(`${error.message}; it has ${has.length ? has.join(' | ') : 'no Repo Wiki diagnostic'}`);
    });

  before(async function () {
    this.timeout(40000);
    assert.ok(raw, 'REPO_WIKI_HOSTILE describes the hostile repository (set by test/run-all.mjs)');
    repo = JSON.parse(raw) as HostileRepo;
    root = workspaceRoot();
    assert.equal(fs.realpathSync(root), fs.realpathSync(repo.root), 'the window opened the hostile repository');
    outsideBefore = snapshotOutside(repo.outsideDir);
  });

  it(`runs ${trusted ? 'trusted' : 'untrusted'}`, () => {
    assert.equal(vscode.workspace.isTrusted, trusted);
  });

  it('activates within 20 s: a FIFO or a device never blocks the extension host', async function () {
    this.timeout(30000);
    await within('activating Repo Wiki', 20000, activateExtension());
    // The host's event loop still turns: a synchronous read of a FIFO on it would stop this timer.
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(Date.now() - started < 2000, `the extension host stalled for ${Date.now() - started} ms`);
  });

  it('the Problems panel shows page-not-regular on the FIFO page and page-outside-wiki on the page linking out', async function () {
    this.timeout(40000);
    for (const bad of repo.badPages) {
      const diagnostic = await waitForDiagnostic(bad.path, bad.code);
      assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Error, `${bad.code} is an error`);
    }
  });

  it('the Problems panel shows schema-too-large on the 3 MB SCHEMA.md', async function () {
    this.timeout(40000);
    const diagnostic = await waitForDiagnostic('.wiki/SCHEMA.md', 'schema-too-large');
    assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Warning);
  });

  // Drift checks run in Restricted Mode too (they only read), so both windows show the same codes.
  it('drift shows unreadable-file / outside-workspace on each bad citation, and still checks the valid one', async function () {
    this.timeout(60000);
    for (const bad of repo.badCitations) {
      const diagnostic = await waitForDiagnostic(repo.citationsPage, bad.code, bad.citation);
      assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Error, `${bad.code} on ${bad.citation} is an error`);
    }
    await waitForDiagnostic(repo.citationsPage, 'unverified', repo.validCitation);
    // No bad citation was read as code (which would show as missing, unverified or changed).
    for (const bad of repo.badCitations) {
      const other = vscode.languages.getDiagnostics(uri(repo.citationsPage)).filter((d) => ours(d) && d.message.includes(bad.citation) && d.code !== bad.code);
      assert.deepEqual(other.map((d) => `${d.code}: ${d.message}`), [], bad.citation);
    }
  });

  it('no diagnostic quotes an outside file', () => {
    for (const [file, diagnostics] of vscode.languages.getDiagnostics()) {
      for (const d of diagnostics.filter(ours)) {
        for (const canary of repo.canaries) assert.ok(!d.message.includes(canary), `${file.fsPath}: ${d.message}`);
      }
    }
  });

  if (trusted) {
    it('"Open" on the citation linking out does not open the outside file; on the valid one it opens the code', async function () {
      this.timeout(60000);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const page = uri(repo.citationsPage);
      const outsideLink = repo.badCitations.find((c) => c.code === 'outside-workspace')!.citation;
      await within(`repoWiki.openCitation ${outsideLink}`, 20000, vscode.commands.executeCommand('repoWiki.openCitation', page, outsideLink));
      const targets = new Set([path.join(root, outsideLink), fs.realpathSync(path.join(root, outsideLink))]);
      const opened = vscode.workspace.textDocuments.filter((d) => targets.has(d.uri.fsPath) || repo.canaries.some((c) => d.getText().includes(c)));
      assert.deepEqual(opened.map((d) => d.uri.fsPath), [], 'the outside file is not open');
      assert.ok(!vscode.window.visibleTextEditors.some((e) => targets.has(e.document.uri.fsPath)), 'no editor shows the outside file');
      // The same command on a citation that resolves does open it: the refusal above is not a broken command.
      await within(`repoWiki.openCitation ${repo.validCitation}`, 20000, vscode.commands.executeCommand('repoWiki.openCitation', page, repo.validCitation));
      const cited = path.join(root, repo.validCitation.split(':')[0]);
      await waitFor(`an editor on ${cited}`, () => vscode.window.activeTextEditor?.document.uri.fsPath === cited);
    });

    it('rebuilding the index, stamping and fixing lint finish in time and leave the bad pages out of index.json', async function () {
      this.timeout(90000);
      await within('repoWiki.rebuildIndex', 20000, vscode.commands.executeCommand('repoWiki.rebuildIndex'));
      await within('repoWiki.stampPage', 20000, vscode.commands.executeCommand('repoWiki.stampPage', uri(repo.citationsPage)));
      await within('repoWiki.lintFix', 20000, vscode.commands.executeCommand('repoWiki.lintFix', { confirm: false }));
      const index = fs.readFileSync(path.join(root, '.wiki', 'index.json'), 'utf8');
      const slugs = (JSON.parse(index) as { pages: { slug: string }[] }).pages.map((p) => p.slug);
      assert.ok(slugs.includes(path.basename(repo.citationsPage, '.md')), `regular pages are indexed: ${slugs.join(', ')}`);
      for (const bad of repo.badPages) assert.ok(!slugs.includes(path.basename(bad.path, '.md')), `${bad.path} is not in index.json`);
      for (const canary of repo.canaries) assert.ok(!index.includes(canary), `${canary} is not in index.json`);
    });
  }

  it('nothing outside the workspace changed: the log link, the passwd link and the outside code are untouched', () => {
    assert.deepEqual(snapshotOutside(repo.outsideDir), outsideBefore);
  });
});
