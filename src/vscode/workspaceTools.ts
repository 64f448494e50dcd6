import * as vscode from 'vscode';
import { RipgrepSearch } from '../adapters/search/ripgrep';
import { createWikiTools, type WikiTool } from '../core/tools';
import type { Wiki } from '../core/wiki/wiki';
import type { Services } from './services/services';

/**
 * The read-only tools of each wiki in the window, built once per folder: pages from the shared
 * snapshots, reads through the folder's guarded file access, parsing and drift in the drift
 * worker, search with the ripgrep that ships with VS Code.
 */
export class WorkspaceTools {
  private readonly built = new Map<string, readonly WikiTool[]>();

  constructor(private readonly services: Pick<Services, 'wikis' | 'snapshots' | 'ages' | 'driftWorker'>) {}

  of(wiki: Wiki): readonly WikiTool[] {
    let tools = this.built.get(wiki.root);
    if (!tools) {
      const { services } = this;
      const worker = () => services.driftWorker();
      tools = createWikiTools({
        wiki,
        pages: async () => (await services.snapshots.get(wiki)).pages,
        ages: (pages) => services.ages.tags(wiki, pages),
        drift: { check: async (pages) => (await worker()).request({ kind: 'check', root: wiki.root, slugs: pages.map((page) => page.slug) }) },
        files: services.wikis.filesOf(wiki),
        symbolsOf: async (relPath, text) => (await worker()).request({ kind: 'symbols', root: wiki.root, path: relPath, text }),
        search: new RipgrepSearch(wiki.root, { appRoot: vscode.env.appRoot }),
      });
      this.built.set(wiki.root, tools);
    }
    return tools;
  }
}
