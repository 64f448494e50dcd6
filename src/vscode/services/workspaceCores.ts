import * as vscode from 'vscode';
import type { DriftClient } from '../../adapters/drift/driftClient';
import { WorkerDriftBackend } from '../../adapters/drift/workerDriftBackend';
import { SourceFactsReader } from '../../adapters/map/sourceFactsReader';
import { RipgrepSearch } from '../../adapters/search/ripgrep';
import { mayBeListed, WorkspaceSearch } from '../../adapters/workspaceSearch';
import { systemClock } from '../../adapters/workspace';
import { assembleCore, type WorkspaceCore } from '../../core/assembleCore';
import { RepoMap } from '../../core/map/repoMap';
import type { FileSystem } from '../../core/ports';
import type { Wiki } from '../../core/wiki/wiki';
import type { PageAges } from './pageAges';
import type { WikiSnapshots } from './wikiSnapshots';
import type { WorkspaceWikis } from './workspaceWikis';

/**
 * The core of each wiki in the window, assembled once per folder as every front end assembles it:
 * pages from the shared snapshots, reads through the folder's guarded file access, parsing and
 * drift in the drift worker, search with the ripgrep that ships with VS Code.
 */
export class WorkspaceCores implements vscode.Disposable {
  private readonly cores = new Map<string, WorkspaceCore>();
  private readonly mapWatch: vscode.Disposable;

  constructor(
    private readonly services: { wikis: WorkspaceWikis; snapshots: WikiSnapshots; ages: PageAges },
    private readonly driftWorker: () => Promise<DriftClient>,
  ) {
    this.mapWatch = watchForMaps((uri) => {
      const wiki = services.wikis.forUri(uri);
      const map = wiki && this.cores.get(wiki.root)?.map;
      return map && { map, relPath: wiki.relative(uri.fsPath) };
    });
  }

  dispose(): void {
    this.mapWatch.dispose();
  }

  of(wiki: Wiki): WorkspaceCore {
    let core = this.cores.get(wiki.root);
    if (!core) {
      const { wikis, snapshots, ages } = this.services;
      const files = wikis.filesOf(wiki);
      const drift = new WorkerDriftBackend(this.driftWorker, wiki.root);
      core = assembleCore({
        wiki,
        files,
        drift,
        search: new RipgrepSearch(wiki.root, { appRoot: vscode.env.appRoot }),
        clock: systemClock,
        pages: async () => (await snapshots.get(wiki)).pages,
        ages: (pages) => ages.tags(wiki, pages),
        map: repoMapOf(wiki.root, files, drift),
      });
      this.cores.set(wiki.root, core);
    }
    return core;
  }
}

/**
 * The repository map of a folder, told of every change by watchForMaps: a map after a save reads
 * and parses the saved file alone, and lists the folder again only when files came or went. Files
 * are parsed in the drift worker, one per request, never on this thread; their facts are kept for
 * the window's life.
 */
function repoMapOf(root: string, files: FileSystem, drift: WorkerDriftBackend): RepoMap {
  const listing = new WorkspaceSearch(root, files);
  return new RepoMap(new SourceFactsReader(root, files, () => {
    listing.reset();
    return listing.sourceFiles();
  }, { symbolsOf: (relPath, text) => drift.symbolsOf(relPath, text) }), { watched: true });
}

/**
 * Tells the maps of the window which files changed: the file watcher (saves, a checkout, other
 * tools; files that come and go) and, not waiting for the watcher, the editor's own saves.
 * Changes in folders the listing skips (node_modules, .git, build output) are not told.
 */
function watchForMaps(mapOf: (uri: vscode.Uri) => { map: RepoMap; relPath: string } | undefined): vscode.Disposable {
  const tell = (uri: vscode.Uri, listChanged: boolean) => {
    const target = uri.scheme === 'file' ? mapOf(uri) : undefined;
    if (target && mayBeListed(target.relPath)) target.map.filesChanged([target.relPath], listChanged);
  };
  const watcher = vscode.workspace.createFileSystemWatcher('**/*');
  return vscode.Disposable.from(
    watcher,
    watcher.onDidChange((uri) => tell(uri, false)),
    watcher.onDidCreate((uri) => tell(uri, true)),
    watcher.onDidDelete((uri) => tell(uri, true)),
    vscode.workspace.onDidSaveTextDocument((document) => tell(document.uri, false)),
  );
}
