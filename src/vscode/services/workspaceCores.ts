import * as vscode from 'vscode';
import type { DriftClient } from '../../adapters/drift/driftClient';
import { WorkerDriftBackend } from '../../adapters/drift/workerDriftBackend';
import { SourceFactsReader } from '../../adapters/map/sourceFactsReader';
import { RipgrepSearch } from '../../adapters/search/ripgrep';
import { WorkspaceSearch } from '../../adapters/workspaceSearch';
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
export class WorkspaceCores {
  private readonly cores = new Map<string, WorkspaceCore>();

  constructor(
    private readonly services: { wikis: WorkspaceWikis; snapshots: WikiSnapshots; ages: PageAges },
    private readonly driftWorker: () => Promise<DriftClient>,
  ) {}

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
 * The repository map of a folder: its files listed afresh for each map (no watcher keeps the
 * list), parsed in the drift worker, one file per request, never on this thread; its facts are
 * kept by file for the window's life, so a map after a save parses the saved file alone.
 */
function repoMapOf(root: string, files: FileSystem, drift: WorkerDriftBackend): RepoMap {
  const listing = new WorkspaceSearch(root, files);
  return new RepoMap(new SourceFactsReader(root, files, () => {
    listing.reset();
    return listing.sourceFiles();
  }, { symbolsOf: (relPath, text) => drift.symbolsOf(relPath, text) }));
}
