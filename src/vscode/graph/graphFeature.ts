import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Services } from '../services/services';
import { GraphRender, GraphPanel } from './graphPanel';

/** "Repo Wiki: Show wiki graph": a webview panel of the wiki's pages and links. */
export const graphFeature = {
  activate(context: vscode.ExtensionContext, services: Services) {
    const panels = new Map<string, GraphPanel>();
    const rendered = new vscode.EventEmitter<GraphRender>();
    const show = async (): Promise<GraphPanel | undefined> => {
      const wiki = await services.wikis.pick({ mustExist: true, purpose: 'Show wiki graph' });
      if (!wiki) return undefined;
      const open = panels.get(wiki.root);
      if (open) {
        open.panel.reveal();
        return open;
      }
      const panel = vscode.window.createWebviewPanel('repoWiki.graph', `Wiki graph: ${path.basename(wiki.root)}`, vscode.ViewColumn.Active, { enableScripts: true });
      panel.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'repo-wiki.svg');
      const graph = new GraphPanel(wiki, panel, services, context.extensionUri, rendered);
      panels.set(wiki.root, graph);
      panel.onDidDispose(() => {
        graph.dispose();
        if (panels.get(wiki.root) === graph) panels.delete(wiki.root);
      });
      return graph;
    };
    context.subscriptions.push(
      rendered,
      { dispose: () => panels.forEach((graph) => graph.panel.dispose()) },
      vscode.commands.registerCommand('repoWiki.showGraph', async () => void (await show())),
    );
    // For tests: the panel of a wiki, messages sent as its webview would, and its first-frame reports.
    return {
      graph: {
        panel: (root: string) => panels.get(root)?.panel,
        receive: (root: string, raw: unknown) => panels.get(root)?.receive(raw),
        onDidRender: rendered.event,
      },
    };
  },
};
