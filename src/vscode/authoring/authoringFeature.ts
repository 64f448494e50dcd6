import * as vscode from 'vscode';
import type { Services } from '../services/services';
import { BacklinksProvider } from './backlinksView';
import { goToPage } from './goToPage';
import { followExplorerRenames, PageRenameProvider, renamePageCommand } from './pageRename';
import {
  PageCompletionProvider, PageDefinitionProvider, PageDocumentLinkProvider, PageDocumentSymbolProvider, PageHoverProvider,
  PageReferenceProvider, PageWorkspaceSymbolProvider,
} from './providers';
import { PAGE_SELECTOR, WikiLanguage } from './wikiLanguage';

/** The page editor: completion, navigation, hover, outline, rename, Backlinks view and "Go to wiki page…". */
export const authoringFeature = {
  activate(context: vscode.ExtensionContext, services: Services) {
    const language = new WikiLanguage(services);
    const backlinks = new BacklinksProvider(services);
    const view = vscode.window.createTreeView('repoWiki.backlinks', { treeDataProvider: backlinks });
    backlinks.view = view;
    backlinks.follow(vscode.window.activeTextEditor?.document.uri);
    let lastRenames: Promise<unknown> = Promise.resolve();
    const renames = new PageRenameProvider(services, language);
    context.subscriptions.push(
      language,
      view,
      vscode.languages.registerCompletionItemProvider(PAGE_SELECTOR, new PageCompletionProvider(language), ...PageCompletionProvider.triggers),
      vscode.languages.registerDefinitionProvider(PAGE_SELECTOR, new PageDefinitionProvider(language)),
      vscode.languages.registerHoverProvider(PAGE_SELECTOR, new PageHoverProvider(language)),
      vscode.languages.registerDocumentLinkProvider(PAGE_SELECTOR, new PageDocumentLinkProvider(language)),
      vscode.languages.registerReferenceProvider(PAGE_SELECTOR, new PageReferenceProvider(language)),
      vscode.languages.registerDocumentSymbolProvider(PAGE_SELECTOR, new PageDocumentSymbolProvider(language), { label: 'Wiki page' }),
      vscode.languages.registerWorkspaceSymbolProvider(new PageWorkspaceSymbolProvider(language, () => services.wikis.existing())),
      vscode.languages.registerRenameProvider(PAGE_SELECTOR, renames),
      vscode.window.onDidChangeActiveTextEditor((editor) => backlinks.follow(editor?.document.uri)),
      services.snapshots.onDidUpdate(() => backlinks.refresh()),
      vscode.workspace.onDidRenameFiles((event) => (lastRenames = followExplorerRenames(services, event))),
      vscode.commands.registerCommand('repoWiki.goToPage', () => goToPage(services)),
      vscode.commands.registerCommand('repoWiki.renamePage', (uri?: vscode.Uri) => renamePageCommand(services, uri)),
    );
    // For tests: the link updates that follow the latest Explorer rename, and why the latest F2 rename was refused.
    return { authoring: { language, explorerRenames: () => lastRenames, lastRenameRefusal: () => renames.lastRefusal } };
  },
};
