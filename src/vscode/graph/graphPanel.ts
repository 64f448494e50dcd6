import { webviewHtml } from '../common/webviewHtml';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildWikiGraph } from '../../core/authoring';
import type { Wiki } from '../../core/wiki/wiki';
import { parseGraphMessage, type GraphToHost, type HostToGraph } from '../../shared/graphProtocol';
import { uriOf } from '../authoring/wikiLanguage';
import type { Services } from '../services/services';

/** The last first-frame report of a graph panel (for tests and the bench). */
export interface GraphRender {
  wiki: string;
  nodes: number;
  ms: number;
}

/**
 * One graph panel per wiki: the graph data is built in the core from the snapshot's pages and
 * sent again whenever the wiki changes. Every message from the webview is validated, and a page
 * opens only when its slug names a page of this wiki.
 */
export class GraphPanel implements vscode.Disposable {
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly wiki: Wiki,
    readonly panel: vscode.WebviewPanel,
    private readonly services: Services,
    private readonly extensionUri: vscode.Uri,
    private readonly rendered: vscode.EventEmitter<GraphRender>,
  ) {
    panel.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
    };
    panel.webview.html = this.html(panel.webview);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)),
      services.snapshots.onDidUpdate((snapshot) => {
        if (snapshot.wiki.root !== wiki.root || !this.ready) return;
        this.send().catch((error: unknown) => services.output.error('Graph: could not send the updated wiki:', error instanceof Error ? (error.stack ?? error.message) : String(error)));
      }),
    );
  }

  /** Handles one message as the webview sends it; what does not validate is dropped and logged. */
  async receive(raw: unknown): Promise<void> {
    const message = parseGraphMessage(raw);
    if (!message) {
      this.services.output.warn(`Dropped an invalid message from the graph view: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    try {
      await this.handle(message);
    } catch (error) {
      this.services.output.error(`Graph: ${message.type} failed:`, error instanceof Error ? (error.stack ?? error.message) : String(error));
      void vscode.window.showErrorMessage(`Repo Wiki graph: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async handle(message: GraphToHost): Promise<void> {
    if (message.type === 'ready') {
      this.ready = true;
      await this.send();
    } else if (message.type === 'rendered') {
      this.services.output.debug(`Graph of ${message.nodes} pages drawn in ${message.ms.toFixed(0)} ms`);
      this.rendered.fire({ wiki: this.wiki.root, nodes: message.nodes, ms: message.ms });
    } else {
      const page = (await this.services.snapshots.get(this.wiki)).pages.find((candidate) => candidate.slug === message.slug);
      if (!page) {
        this.services.output.warn(`The graph asked to open "${message.slug}", which is not a page of ${this.wiki.root}.`);
        return;
      }
      await vscode.window.showTextDocument(uriOf(this.wiki, page.relPath), { viewColumn: vscode.ViewColumn.Beside, preview: true });
    }
  }

  private async send(): Promise<void> {
    const snapshot = await this.services.snapshots.get(this.wiki);
    const message: HostToGraph = { type: 'graph', graph: buildWikiGraph(snapshot.pages), wikiName: path.basename(this.wiki.root) };
    await this.panel.webview.postMessage(message);
  }

  private html(webview: vscode.Webview): string {
    return webviewHtml(webview, this.extensionUri, { title: 'Wiki graph', styles: [['media', 'graph.css']], script: ['dist', 'graph.js'] });
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}
