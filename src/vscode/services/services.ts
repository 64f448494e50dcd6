import type * as vscode from 'vscode';
import type { DriftClient } from '../../adapters/drift/driftClient';
import type { CitationIndex, DocumentSymbols } from '../drift/citedBy';
import type { WikiTool } from '../../core/tools';
import type { Models } from '../models/models';
import type { WikiProposals } from './wikiProposals';
import type { Wiki } from '../../core/wiki/wiki';
import type { PageAges } from './pageAges';
import type { WikiSnapshots } from './wikiSnapshots';
import type { WorkspaceWikis } from './workspaceWikis';

/** What features receive from the composition root. */
export interface Services {
  readonly wikis: WorkspaceWikis;
  readonly snapshots: WikiSnapshots;
  readonly output: vscode.LogOutputChannel;
  /** Which model answers (Claude with the user's key, or a VS Code model), and the API key. */
  readonly models: Models;
  /** Page ages from git history, for the Pages tree and the model's context. */
  readonly ages: PageAges;
  /** Folder `init` copies into a new `.wiki/`. */
  readonly templateDir: string;
  /** The drift worker (TypeScript parsing off the main thread), started on first use. */
  driftWorker(): Promise<DriftClient>;
  /** Which wiki pages cite which symbols, rebuilt when a wiki changes: for the cited-by lenses and Ask about selection. */
  readonly citations: CitationIndex;
  /** The declarations of open TS/JS documents, parsed in the drift worker and kept per document version. */
  readonly documentSymbols: DocumentSymbols;
  /** Page changes agents proposed, waiting for a person's review. */
  readonly proposals: WikiProposals;
  /** The read-only tools over a wiki and its code (search, read, drift), shared by every feature that offers them to a model. */
  tools(wiki: Wiki): readonly WikiTool[];
}

/** A feature of the extension, activated by the composition root from one list. */
export interface Feature {
  /** May return hooks that integration tests reach through the extension's API. */
  activate(context: vscode.ExtensionContext, services: Services): void | Record<string, unknown>;
}
