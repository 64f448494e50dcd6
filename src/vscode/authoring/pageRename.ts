import * as path from 'node:path';
import * as vscode from 'vscode';
import { followMovedPage, renamePage, type RenameResult } from '../../core/authoring';
import { WikiError } from '../../core/errors';
import { slugProblem } from '../../core/pages/slug';
import type { Wiki } from '../../core/wiki/wiki';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';
import { pageIn, type WikiLanguage } from './wikiLanguage';

/**
 * Renames a page through the core (new file first, then the linking pages, then the old file,
 * under the write lock; see core/authoring/rename.ts), so every front end renames the same way.
 * Unsaved page edits are saved first, so the rewrite starts from what the user sees; an open
 * editor of the old page is replaced by the new one. Undo is a rename back.
 */
export async function renameWikiPage(services: Services, wiki: Wiki, from: string, to: string): Promise<RenameResult> {
  await savePages(wiki);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `Renaming [[${from}]]` },
    () => renamePage(wiki, from, to),
  );
  await reopen(wiki.pagePath(from), wiki.pagePath(to));
  services.wikis.notifyChanged(wiki);
  return result;
}

async function savePages(wiki: Wiki): Promise<void> {
  const dirty = vscode.workspace.textDocuments.filter((doc) => doc.isDirty && path.dirname(doc.uri.fsPath) === wiki.pagesDir);
  for (const document of dirty) await document.save();
}

/** Editors showing the removed file now show the renamed one. */
async function reopen(oldFile: string, newFile: string): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.fsPath === oldFile);
  if (!tabs.length) return;
  await vscode.window.showTextDocument(vscode.Uri.file(newFile), { preview: false });
  await vscode.window.tabGroups.close(tabs);
}

/** Why `slug` cannot be the new name of a page in `taken`, or undefined when it can. */
export function newSlugProblem(slug: string, from: string, taken: ReadonlySet<string>): string | undefined {
  if (slug === from) return 'That is the current name.';
  const problem = slugProblem(slug);
  if (problem) return `Not a valid slug: ${problem}.`;
  if (taken.has(slug)) return `A page called "${slug}" already exists.`;
  return undefined;
}

/** F2 on `[[slug]]`, on a page's title line or its first heading: renames the page and every link to it. */
export class PageRenameProvider implements vscode.RenameProvider {
  constructor(private readonly services: Services, private readonly language: WikiLanguage) {}

  prepareRename(document: vscode.TextDocument, position: vscode.Position): { range: vscode.Range; placeholder: string } {
    const target = this.language.forDocument(document);
    const found = target?.service.renameTarget(target.page, position);
    // Thrown, so VS Code tries the next rename provider (markdown's own, for headings).
    if (!found) throw new Error('Put the cursor on a [[link]] or on the title to rename a wiki page.');
    const { start, end } = found.range;
    return { range: new vscode.Range(start.line, start.character, end.line, end.character), placeholder: found.slug };
  }

  /** Why the latest rename was refused (for tests; the user sees it as an error message). */
  lastRefusal?: string;

  async provideRenameEdits(document: vscode.TextDocument, position: vscode.Position, newName: string): Promise<vscode.WorkspaceEdit> {
    const target = this.language.forDocument(document);
    const found = target?.service.renameTarget(target.page, position);
    if (!target || !found) throw new Error('Put the cursor on a [[link]] or on the title to rename a wiki page.');
    const to = newName.trim();
    const taken = new Set((await this.services.snapshots.get(target.wiki)).pages.map((page) => page.slug));
    const problem = !vscode.workspace.isTrusted
      ? 'Renaming a page is not available in Restricted Mode: Repo Wiki writes nothing until you trust this workspace.'
      : newSlugProblem(to, found.slug, taken);
    try {
      if (!problem) await renameWikiPage(this.services, target.wiki, found.slug, to);
      this.lastRefusal = problem;
    } catch (error) {
      this.lastRefusal = error instanceof WikiError ? error.userMessage : (error as Error).message;
      if (!(error instanceof WikiError)) this.services.output.error('Renaming the page:', error instanceof Error ? (error.stack ?? error.message) : String(error));
    }
    // A refusal is shown here, not thrown: VS Code would hand a thrown one to markdown's own rename, which answers with an empty edit and hides it.
    if (this.lastRefusal) void vscode.window.showErrorMessage(`Renaming [[${found.slug}]] failed: ${this.lastRefusal} Nothing was changed.`);
    // The core wrote the files (in its safe order); there is nothing left for the editor to apply.
    return new vscode.WorkspaceEdit();
  }
}

/** "Rename wiki page…": the active page (or a picked one), a new slug checked as it is typed. */
export async function renamePageCommand(services: Services, uri?: vscode.Uri): Promise<RenameResult | undefined> {
  if (!ensureTrusted('Renaming a page')) return undefined;
  const active = uri ?? vscode.window.activeTextEditor?.document.uri;
  let page = active && pageIn(services, active);
  if (!page) {
    const wiki = await services.wikis.pick({ mustExist: true, purpose: 'Rename wiki page' });
    if (!wiki) return undefined;
    const pages = (await services.snapshots.get(wiki)).pages;
    const picked = await vscode.window.showQuickPick(pages.map((p) => ({ label: p.frontmatter.title ?? p.slug, description: p.slug, slug: p.slug })), { title: 'Rename wiki page', placeHolder: 'Which page?' });
    if (!picked) return undefined;
    page = { wiki, slug: picked.slug };
  }
  const { wiki, slug } = page;
  const taken = new Set((await services.snapshots.get(wiki)).pages.map((p) => p.slug));
  const to = await vscode.window.showInputBox({
    title: `Rename wiki page [[${slug}]]`,
    prompt: 'New slug: every [[link]] to the page follows.',
    value: slug,
    validateInput: (value) => newSlugProblem(value.trim(), slug, taken),
  });
  if (!to) return undefined;
  try {
    const result = await renameWikiPage(services, wiki, slug, to.trim());
    void vscode.window.showInformationMessage(`Repo Wiki: renamed [[${result.from}]] to [[${result.to}]]; ${result.links} link${result.links === 1 ? '' : 's'} in ${result.updated.length} page${result.updated.length === 1 ? '' : 's'} updated.`);
    return result;
  } catch (error) {
    showError(services.output, 'Renaming the page', error);
    return undefined;
  }
}

/**
 * A page file renamed in the Explorer (or by any extension through VS Code): the links follow,
 * written by the core under the write lock, and the log gets a rename line. Undoing the rename in
 * the Explorer is another rename, so the links follow back.
 */
export async function followExplorerRenames(services: Services, event: vscode.FileRenameEvent): Promise<RenameResult[]> {
  const results: RenameResult[] = [];
  for (const { oldUri, newUri } of event.files) {
    const from = pageIn(services, oldUri);
    const wiki = from?.wiki;
    if (!from || !wiki || path.dirname(newUri.fsPath) !== wiki.pagesDir || !newUri.fsPath.endsWith('.md')) continue;
    const to = path.basename(newUri.fsPath, '.md');
    const linking = (await services.snapshots.get(wiki)).pages.some((page) => page.links.some((link) => link.target === from.slug) || page.frontmatter.superseded_by === from.slug);
    if (!linking) continue;
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage(`Links to [[${from.slug}]] were not updated: Repo Wiki writes nothing in Restricted Mode.`);
      continue;
    }
    try {
      await savePages(wiki);
      results.push(await followMovedPage(wiki, from.slug, to));
      services.wikis.notifyChanged(wiki);
    } catch (error) {
      showError(services.output, `Updating the links to [[${from.slug}]]`, error);
    }
  }
  return results;
}
