import * as vscode from 'vscode';
import { PageSearch } from '../../core/authoring';
import type { Services } from '../services/services';
import { pageIn } from './wikiLanguage';

interface PageItem extends vscode.QuickPickItem {
  relPath: string;
}

/** "Go to wiki page…": search titles, summaries, tags and text as the chat does; the active page's backlinks first. */
export async function goToPage(services: Services): Promise<string | undefined> {
  const wiki = await services.wikis.pick({ mustExist: true, purpose: 'Go to wiki page' });
  if (!wiki) return undefined;
  const active = vscode.window.activeTextEditor && pageIn(services, vscode.window.activeTextEditor.document.uri);
  const activeSlug = active?.wiki === wiki ? active.slug : undefined;
  const search = new PageSearch((await services.snapshots.get(wiki)).pages);
  const pick = vscode.window.createQuickPick<PageItem>();
  pick.title = 'Go to wiki page';
  pick.placeholder = activeSlug ? 'Search pages by title, summary, tags or text (pages linking here come first)' : 'Search pages by title, summary, tags or text';
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  const update = () => {
    pick.items = search.search(pick.value, activeSlug).map((hit) => ({
      label: hit.title,
      description: hit.backlink ? `$(link) links here · ${hit.slug}` : hit.slug,
      detail: hit.summary,
      relPath: hit.relPath,
      // The search already ranked them: keep each, even where VS Code's own filter would not.
      alwaysShow: true,
    }));
  };
  update();
  return new Promise<string | undefined>((resolve) => {
    pick.onDidChangeValue(update);
    pick.onDidAccept(async () => {
      const chosen = pick.selectedItems[0];
      pick.hide();
      if (chosen) await vscode.window.showTextDocument(vscode.Uri.joinPath(vscode.Uri.file(wiki.root), chosen.relPath));
      resolve(chosen?.relPath);
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve(undefined);
    });
    pick.show();
  });
}
