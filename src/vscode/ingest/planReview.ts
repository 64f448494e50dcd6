import * as vscode from 'vscode';
import { applyChanges, type AppliedChanges } from '../../core/ingest/apply';
import { keepChanges, type PageChange, type PreparedPlan } from '../../core/ingest/changes';
import type { LogEntry } from '../../core/model';
import type { Wiki } from '../../core/wiki/wiki';
import type { Services } from '../services/services';
import { showCheckedPick } from '../common/checkedPick';

const SCHEME = 'repo-wiki-proposed';

/** Chooses which changes to apply: slugs, or undefined to reject all. Tests replace the quick pick. */
export type ChangeChooser = (changes: readonly PageChange[], title: string, show: (change: PageChange) => Promise<void>) => Promise<string[] | undefined>;

/** Serves the proposed text of each page, so VS Code's diff editor can show it read-only. */
class ProposedPages implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 0;

  register(change: PageChange): { before: vscode.Uri; after: vscode.Uri } {
    const id = String(this.next++);
    this.texts.set(`/${id}/${change.slug}.md`, change.after);
    this.texts.set(`/${id}/before/${change.slug}.md`, change.before ?? '');
    return {
      before: vscode.Uri.from({ scheme: SCHEME, path: `/${id}/before/${change.slug}.md` }),
      after: vscode.Uri.from({ scheme: SCHEME, path: `/${id}/${change.slug}.md` }),
    };
  }

  forget(uris: readonly vscode.Uri[]): void {
    for (const uri of uris) this.texts.delete(uri.path);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? '';
  }
}

const proposed = new ProposedPages();
let chooser: ChangeChooser = chooseInQuickPick;

/** For integration tests: answer the review without the quick pick. */
export function setChangeChooser(next: ChangeChooser | undefined): void {
  chooser = next ?? chooseInQuickPick;
}

export function registerPlanReview(context: vscode.ExtensionContext): void {
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(SCHEME, proposed));
}

/**
 * Shows each proposed page in the diff editor and a review list; applies the changes the user
 * keeps. Returns undefined when everything was rejected.
 */
export async function reviewAndApply(
  services: Services,
  wiki: Wiki,
  prepared: PreparedPlan,
  options: { title: string; log: Omit<LogEntry, 'ts' | 'pages'> },
): Promise<AppliedChanges | undefined> {
  for (const note of prepared.notes) services.output.info(`${options.title}: ${note}`);
  if (!prepared.changes.length) {
    const applied = await applyChanges(wiki, [], options.log);
    const why = prepared.notes.length ? ` ${prepared.notes[0]}` : '';
    void vscode.window.showInformationMessage(`${options.title}: nothing to change in the wiki.${why}`);
    return applied;
  }
  const slugs = await chooseChanges(wiki, prepared.changes, options.title);
  if (!slugs?.length) {
    void vscode.window.showInformationMessage(`${options.title}: rejected; nothing was written.`);
    services.output.info(`${options.title}: the plan was rejected in review; nothing was written.`);
    return undefined;
  }
  const accepted = keepChanges(prepared.changes, new Set(slugs));
  const applied = await applyChanges(wiki, accepted, { ...options.log, rejected: prepared.changes.filter((c) => !slugs.includes(c.slug)).map((c) => c.slug) });
  reportApplied(services, wiki, options.title, applied, accepted);
  return applied;
}

/**
 * Shows each proposed page in the diff editor beside a review list, and returns the slugs the
 * user kept (undefined when they rejected or dismissed the review). Writes nothing.
 */
export async function chooseChanges(wiki: Wiki, changes: readonly PageChange[], title: string): Promise<string[] | undefined> {
  const uris = changes.map((change) => proposed.register(change));
  try {
    const show = (change: PageChange, preserveFocus = true) => showDiff(wiki, change, uris[changes.indexOf(change)], preserveFocus);
    await show(changes[0]);
    return await chooser(changes, title, show);
  } finally {
    await closePreviews();
    proposed.forget(uris.flatMap((pair) => [pair.before, pair.after]));
  }
}

/** Says what a review wrote, in the output and a notification that opens the first page. */
export function reportApplied(services: Services, wiki: Wiki, title: string, applied: AppliedChanges, accepted: readonly PageChange[]): void {
  const parts = [
    applied.created.length && `${applied.created.length} created`,
    applied.updated.length && `${applied.updated.length} updated`,
    applied.corroborated.length && `${applied.corroborated.length} corroborated`,
    applied.linked.length && `${applied.linked.length} linked`,
  ].filter(Boolean);
  services.output.info(`${title}: ${parts.join(', ')} (${accepted.map((c) => c.slug).join(', ')}).`);
  const first = applied.created[0] ?? applied.updated[0];
  void vscode.window.showInformationMessage(`${title}: ${parts.join(', ')}.`, ...(first ? ['Open Page'] : []))
    .then((choice) => {
      if (choice && first) void vscode.window.showTextDocument(vscode.Uri.file(wiki.pagePath(first)));
    });
}

/** Closes the diff tabs the review opened: once the plan is applied or rejected they show nothing real. */
async function closePreviews(): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === SCHEME);
  if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
}

async function showDiff(wiki: Wiki, change: PageChange, uris: { before: vscode.Uri; after: vscode.Uri }, preserveFocus: boolean): Promise<void> {
  // The left side is the page as it is on disk; a new page diffs against an empty document.
  const left = change.before === undefined ? uris.before : vscode.Uri.file(wiki.pagePath(change.slug));
  const label = `${change.slug}.md (${change.kind === 'create' ? 'new page' : change.kind}) ↔ proposed`;
  await vscode.commands.executeCommand('vscode.diff', left, uris.after, label, { preview: true, preserveFocus });
}

interface ChangeItem extends vscode.QuickPickItem {
  change: PageChange;
}

const KIND_ICON: Record<PageChange['kind'], string> = { create: '$(new-file)', update: '$(edit)', corroborate: '$(pass)', link: '$(link)' };

/** A multi-select list of the changes, all checked; each has a button that opens its diff. */
async function chooseInQuickPick(changes: readonly PageChange[], title: string, show: (change: PageChange) => Promise<void>): Promise<string[] | undefined> {
  const diffButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('diff'), tooltip: 'Show the proposed change' };
  const pick = vscode.window.createQuickPick<ChangeItem>();
  pick.title = `${title}: review ${changes.length} proposed change${changes.length === 1 ? '' : 's'}`;
  pick.placeholder = 'Uncheck what you do not want, then press Enter to apply. Escape rejects the whole plan.';
  pick.onDidTriggerItemButton(({ item }) => void show(item.change));
  // Moving through the list previews the change under the cursor.
  pick.onDidChangeActive(([item]) => item && void show(item.change));
  return showCheckedPick(pick, changes.map((change) => ({
    label: `${KIND_ICON[change.kind]} ${change.title}`,
    description: `${change.slug}.md`,
    detail: change.detail,
    buttons: [diffButton],
    change,
  })), (item) => item.change.slug);
}
