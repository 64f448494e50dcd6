import * as path from 'node:path';
import * as vscode from 'vscode';
import { findCitations } from '../../core/drift/citations';
import type { Services } from '../services/services';
import { showError } from '../common/userErrors';

const SCHEME = 'repo-wiki-cited';

/**
 * "Show what changed": a diff editor of a cited symbol's code at the commit its page was verified
 * against, beside the code now. Both sides are read-only documents of this scheme.
 */
export function registerWhatChanged(services: Services): vscode.Disposable {
  const contents = new Map<string, string>();
  let opened = 0;
  const show = async (page: vscode.Uri, citation: string) => {
    const wiki = services.wikis.forUri(page);
    const parsed = findCitations({ body: `\`${citation}\``, bodyStartLine: 0 })[0];
    if (!wiki || !parsed || parsed.outside) return undefined;
    try {
      const anchor = (await wiki.readPage(path.basename(page.fsPath, '.md')))?.frontmatter.anchors?.[citation];
      const change = await services.cores.of(wiki).drift.whatChanged(parsed, anchor);
      if ('unavailable' in change) {
        const review = 'Mark as reviewed';
        void vscode.window.showInformationMessage(`Repo Wiki: ${change.unavailable}`, review)
          .then((choice) => choice && vscode.commands.executeCommand('repoWiki.stampCitation', page, citation));
        return change;
      }
      // A fresh query per diff: the documents are cached by URI, and the same citation can be shown again after another edit.
      const side = (label: string, text: string) => {
        const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${label}/${change.path}`, query: String(++opened) });
        contents.set(uri.toString(), text);
        return uri;
      };
      const title = `${change.symbol ?? change.path}: at ${change.commit} ↔ now`;
      await vscode.commands.executeCommand('vscode.diff', side(change.commit, change.before), side('now', change.after), title, { preview: true });
      return change;
    } catch (error) {
      showError(services.output, `Showing what changed in ${citation}`, error);
      return undefined;
    }
  };
  return vscode.Disposable.from(
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, { provideTextDocumentContent: (uri) => contents.get(uri.toString()) }),
    vscode.workspace.onDidCloseTextDocument((document) => document.uri.scheme === SCHEME && contents.delete(document.uri.toString())),
    vscode.commands.registerCommand('repoWiki.showWhatChanged', show),
  );
}
