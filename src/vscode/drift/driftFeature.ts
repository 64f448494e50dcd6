import * as path from 'node:path';
import * as vscode from 'vscode';
import { findCitations } from '../../core/drift/citations';
import type { CodeLocation } from '../../core/drift/driftEngine';
import type { WikiPage } from '../../core/model';
import { markStale, relocateCitation } from '../../core/pages/pageEdits';
import type { Wiki } from '../../core/wiki/wiki';
import type { Services } from '../services/services';
import type { WikiSnapshot } from '../services/wikiSnapshots';
import { ensureTrusted, showError } from '../common/userErrors';
import { DriftCodeActions } from './driftCodeActions';
import { DriftService } from './driftService';
import { showCodeLocation } from './locateCitation';
import { registerCitedBy } from './citedBy';
import { registerWhatChanged } from './whatChangedView';

const IGNORED = /(^|\/)(node_modules|\.git|\.wiki|dist|out|\.vscode-test)\//;

export const driftFeature = {
  activate(context: vscode.ExtensionContext, services: Services): { drift: DriftService } {
    const drift = new DriftService(services);
    const status = vscode.window.createStatusBarItem('repoWiki.drift', vscode.StatusBarAlignment.Left, 50);
    status.name = 'Repo Wiki drift';
    status.command = 'workbench.panel.markers.view.focus';
    const updateStatus = () => {
      const count = drift.count();
      status.text = count ? `$(book) ${count} drift` : '$(book) no drift';
      status.tooltip = count ? `Repo Wiki: ${count} citation${count === 1 ? '' : 's'} no longer match the code. Open the Problems panel.` : 'Repo Wiki: every checked citation matches the code.';
      status.backgroundColor = count ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
      status.show();
    };

    const withFailuresLogged = async (wiki: Wiki, work: () => Promise<unknown>) => {
      try {
        if (await wiki.exists()) await work(); // no wiki, no citations: do not start the worker
      } catch (error) {
        services.output.error(`Drift check of ${wiki.root} failed: ${(error as Error).message}`);
      }
    };
    const checkQuietly = (wiki: Wiki, slugs?: string[], texts?: Record<string, string>) => withFailuresLogged(wiki, () => drift.check(wiki, { slugs, texts }));

    // Source changes: one worker request forgets the files and re-checks the pages citing them.
    const pendingPaths = new Map<string, { paths: Set<string>; listChanged: boolean; timer?: NodeJS.Timeout }>();
    const onSourceChange = (uri: vscode.Uri, listChanged: boolean) => {
      const wiki = services.wikis.forUri(uri);
      if (!wiki) return;
      const rel = wiki.relative(uri.fsPath);
      if (IGNORED.test(`${rel}/`) || IGNORED.test(rel)) return;
      const pending = pendingPaths.get(wiki.root) ?? { paths: new Set<string>(), listChanged: false };
      pending.paths.add(rel);
      pending.listChanged ||= listChanged;
      clearTimeout(pending.timer);
      pending.timer = setTimeout(() => {
        pendingPaths.delete(wiki.root);
        void withFailuresLogged(wiki, () => drift.sourcesChanged(wiki, [...pending.paths], pending.listChanged));
      }, 200);
      pendingPaths.set(wiki.root, pending);
    };

    // Page changes: re-check only the pages whose text changed since the last snapshot (unchanged pages are the same objects).
    const seenPages = new Map<string, Map<string, WikiPage>>();
    const onWikiUpdate = (snapshot: WikiSnapshot) => {
      const previous = seenPages.get(snapshot.wiki.root);
      const current = new Map(snapshot.pages.map((page) => [page.relPath, page]));
      seenPages.set(snapshot.wiki.root, current);
      if (!previous) return void checkQuietly(snapshot.wiki);
      const changed = snapshot.pages.filter((page) => previous.get(page.relPath) !== page).map((page) => page.slug);
      const removed = [...previous.keys()].filter((page) => !current.has(page));
      if (removed.length) drift.forget(snapshot.wiki, removed);
      if (changed.length) void checkQuietly(snapshot.wiki, changed);
    };
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');

    // Page edits: re-check the unsaved text as the user types, so diagnostics follow the edits.
    const typingTimers = new Map<string, NodeJS.Timeout>();
    const onPageEdited = (document: vscode.TextDocument) => {
      const page = pageIn(services, document.uri);
      if (!page) return;
      const key = document.uri.toString();
      clearTimeout(typingTimers.get(key));
      typingTimers.set(key, setTimeout(() => {
        typingTimers.delete(key);
        void checkQuietly(page.wiki, [page.slug], document.isDirty ? { [page.slug]: document.getText() } : undefined);
      }, 300));
    };

    context.subscriptions.push(
      drift,
      status,
      watcher,
      drift.onDidChange(updateStatus),
      vscode.workspace.onDidChangeTextDocument((event) => event.contentChanges.length && onPageEdited(event.document)),
      // Closing an unsaved page drops its edits: check what is on disk again.
      vscode.workspace.onDidCloseTextDocument((document) => document.isDirty && onPageEdited(document)),
      { dispose: () => typingTimers.forEach(clearTimeout) },
      watcher.onDidChange((uri) => onSourceChange(uri, false)),
      watcher.onDidCreate((uri) => onSourceChange(uri, true)),
      watcher.onDidDelete((uri) => onSourceChange(uri, true)),
      services.snapshots.onDidUpdate(onWikiUpdate),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('repoWiki.drift.severities')) drift.republish();
        if (event.affectsConfiguration('repoWiki.drift.semantic')) for (const wiki of services.wikis.all()) void checkQuietly(wiki);
      }),
      vscode.languages.registerCodeActionsProvider(
        { language: 'markdown', pattern: '**/.wiki/pages/*.md' },
        new DriftCodeActions(drift),
        { providedCodeActionKinds: DriftCodeActions.kinds },
      ),
      vscode.commands.registerCommand('repoWiki.checkDrift', () => checkAll(services, drift)),
      vscode.commands.registerCommand('repoWiki.stampPage', (uri?: vscode.Uri) => stampPage(services, drift, uri)),
      vscode.commands.registerCommand('repoWiki.stampCitation', (uri: vscode.Uri, citation: string) => stampPage(services, drift, uri, [citation])),
      vscode.commands.registerCommand('repoWiki.openCitation', (uri: vscode.Uri, citation: string) => openCitation(services, uri, citation)),
      vscode.commands.registerCommand('repoWiki.relocateCitation', (uri: vscode.Uri, from: string, to: string, anchor?: unknown) => editPage(services, uri, 'Updating the citation', (wiki, page) => relocateCitation(wiki, page, from, to, isAnchor(anchor) ? anchor : undefined))),
      vscode.commands.registerCommand('repoWiki.markStale', (uri: vscode.Uri, suggested?: string) => markPageStale(services, uri, suggested)),
      registerCitedBy(services),
      registerWhatChanged(services),
    );
    for (const wiki of services.wikis.all()) {
      void services.snapshots.get(wiki).then((snapshot) => {
        if (!seenPages.has(wiki.root)) onWikiUpdate(snapshot);
      });
    }
    return { drift };
  },
};

async function checkAll(services: Services, drift: DriftService) {
  const wikis = await services.wikis.existing();
  if (!wikis.length) {
    void vscode.window.showWarningMessage('This workspace has no wiki to check.', 'Initialise wiki')
      .then((choice) => choice && vscode.commands.executeCommand('repoWiki.init'));
    return undefined;
  }
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Repo Wiki: checking citations against the code', cancellable: true },
    async (progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      let issues = 0;
      for (const [i, wiki] of wikis.entries()) {
        if (token.isCancellationRequested) break;
        progress.report({ message: path.basename(wiki.root), increment: 100 / wikis.length });
        try {
          issues += (await drift.check(wiki, { signal: controller.signal })).length;
        } catch (error) {
          showError(services.output, 'Checking drift', error);
          return undefined;
        }
        if (i === wikis.length - 1 && !token.isCancellationRequested) {
          const drifted = drift.count();
          void vscode.window.showInformationMessage(drifted ? `Repo Wiki: ${drifted} citation${drifted === 1 ? '' : 's'} drifted from the code.` : 'Repo Wiki: every citation matches the code.', ...(drifted ? ['Show Problems'] : []))
            .then((choice) => choice && vscode.commands.executeCommand('workbench.panel.markers.view.focus'));
        }
      }
      return { issues, cancelled: token.isCancellationRequested };
    },
  );
}

/** The wiki and slug of a page file, or undefined when the URI is not a page. */
function pageIn(services: Services, uri: vscode.Uri): { wiki: Wiki; slug: string } | undefined {
  const wiki = uri.scheme === 'file' ? services.wikis.forUri(uri) : undefined;
  if (!wiki || path.dirname(uri.fsPath) !== wiki.pagesDir || !uri.fsPath.endsWith('.md')) return undefined;
  return { wiki, slug: path.basename(uri.fsPath, '.md') };
}

/** Resolves a page URI (or the active editor's) to its wiki and slug, or tells the user to open one. */
function pageOf(services: Services, uri?: vscode.Uri): { wiki: Wiki; slug: string } | undefined {
  const target = uri ?? vscode.window.activeTextEditor?.document.uri;
  const page = target && pageIn(services, target);
  if (!page) void vscode.window.showWarningMessage('Open a wiki page (.wiki/pages/*.md) first.');
  return page;
}

async function stampPage(services: Services, drift: DriftService, uri?: vscode.Uri, citations?: string[]) {
  if (!ensureTrusted('Stamping citations')) return undefined;
  const target = pageOf(services, uri);
  if (!target) return undefined;
  try {
    await saveIfDirty(uri ?? vscode.Uri.file(target.wiki.pagePath(target.slug)));
    const result = await services.cores.of(target.wiki).drift.stamp(target.slug, { citations });
    await drift.check(target.wiki, { slugs: [target.slug] });
    const unresolved = result.unresolved.length ? ` ${result.unresolved.length} could not be stamped because they do not resolve.` : '';
    const dropped = result.dropped?.length ? ` Dropped ${result.dropped.length} anchor${result.dropped.length === 1 ? '' : 's'} of citations no longer on the page.` : '';
    void vscode.window.showInformationMessage(`Repo Wiki: marked ${result.stamped.length} citation${result.stamped.length === 1 ? '' : 's'} as reviewed.${unresolved}${dropped}`);
    return result;
  } catch (error) {
    showError(services.output, 'Stamping citations', error);
    return undefined;
  }
}

async function openCitation(services: Services, uri: vscode.Uri, citation: string) {
  const wiki = services.wikis.forUri(uri);
  const parsed = findCitations({ body: `\`${citation}\``, bodyStartLine: 0 })[0];
  if (!wiki || !parsed || parsed.outside) return;
  let found: CodeLocation | undefined;
  try {
    // The worker refuses a cited file that is a link out of the workspace, a FIFO or a device.
    found = await services.cores.of(wiki).drift.locate(parsed);
  } catch (error) {
    showError(services.output, `Opening ${citation}`, error);
    return;
  }
  if (!found) {
    void vscode.window.showWarningMessage(`Repo Wiki: ${citation} does not resolve to any code.`);
    return;
  }
  await showCodeLocation(wiki.root, found);
}

async function editPage(services: Services, uri: vscode.Uri, action: string, edit: (wiki: Wiki, page: NonNullable<Awaited<ReturnType<Wiki['readPage']>>>) => Promise<unknown>) {
  if (!ensureTrusted(action)) return undefined;
  const target = pageOf(services, uri);
  if (!target) return undefined;
  try {
    await saveIfDirty(uri);
    const page = await target.wiki.readPage(target.slug);
    if (!page) return undefined;
    const result = await edit(target.wiki, page);
    services.wikis.notifyChanged(target.wiki);
    return result;
  } catch (error) {
    showError(services.output, action, error);
    return undefined;
  }
}

async function markPageStale(services: Services, uri: vscode.Uri, suggested?: string) {
  const reason = await vscode.window.showInputBox({
    title: 'Mark page as stale',
    prompt: 'Why is this page stale? (saved as stale_reason)',
    value: suggested ?? '',
    validateInput: (value) => (value.trim() ? undefined : 'Give a reason so readers know what to distrust.'),
  });
  if (!reason) return undefined;
  return editPage(services, uri, 'Marking the page stale', (wiki, page) => markStale(wiki, page, reason, new Date().toISOString().slice(0, 10)));
}

/** Page edits go through the core on disk; unsaved editor changes are saved first so nothing is lost. */
async function saveIfDirty(uri: vscode.Uri): Promise<void> {
  const document = vscode.workspace.textDocuments.find((doc) => doc.uri.fsPath === uri.fsPath);
  if (document?.isDirty) await document.save();
}

/** A symbol anchor as the engine writes it; anything else a caller passes is not recorded. */
function isAnchor(value: unknown): value is string {
  return typeof value === 'string' && /^sig:[0-9a-f]{8} (body|shape):[0-9a-f]{8}$/.test(value);
}
