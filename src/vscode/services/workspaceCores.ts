import * as vscode from 'vscode';
import type { DriftClient } from '../../adapters/drift/driftClient';
import { WorkerDriftBackend } from '../../adapters/drift/workerDriftBackend';
import { RipgrepSearch } from '../../adapters/search/ripgrep';
import { systemClock } from '../../adapters/workspace';
import { assembleCore, type WorkspaceCore } from '../../core/assembleCore';
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
      core = assembleCore({
        wiki,
        files: wikis.filesOf(wiki),
        drift: new WorkerDriftBackend(this.driftWorker, wiki.root),
        search: new RipgrepSearch(wiki.root, { appRoot: vscode.env.appRoot }),
        clock: systemClock,
        pages: async () => (await snapshots.get(wiki)).pages,
        ages: (pages) => ages.tags(wiki, pages),
      });
      this.cores.set(wiki.root, core);
    }
    return core;
  }
}
