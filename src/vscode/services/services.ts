import type * as vscode from 'vscode';
import type { Models } from '../models/models';
import type { CitationIndex } from './citationIndex';
import type { DocumentSymbols } from './documentSymbols';
import type { PageAges } from './pageAges';
import type { WikiProposals } from './wikiProposals';
import type { WikiSnapshots } from './wikiSnapshots';
import type { WorkspaceCores } from './workspaceCores';
import type { WorkspaceWikis } from './workspaceWikis';

/** What features receive from the composition root; every class it names lives in this folder or in models/. */
export interface Services {
  readonly wikis: WorkspaceWikis;
  /** The core of each wiki (drift in the worker, the read-only tools, proposals), assembled once per folder. */
  readonly cores: WorkspaceCores;
  readonly snapshots: WikiSnapshots;
  readonly output: vscode.LogOutputChannel;
  /** Which model answers (Claude with the user's key, or a VS Code model), and the API key. */
  readonly models: Models;
  /** Page ages from git history, for the Pages tree and the model's context. */
  readonly ages: PageAges;
  /** Folder `init` copies into a new `.wiki/`. */
  readonly templateDir: string;
  /** Which wiki pages cite which symbols, rebuilt when a wiki changes: for the cited-by lenses and Ask about selection. */
  readonly citations: CitationIndex;
  /** The declarations of open source documents, parsed in the drift worker and kept per document version. */
  readonly documentSymbols: DocumentSymbols;
  /** Page changes agents proposed, waiting for a person's review. */
  readonly proposals: WikiProposals;
}

/** A feature of the extension, activated by the composition root from one list. */
export interface Feature {
  /** May return hooks that integration tests reach through the extension's API. */
  activate(context: vscode.ExtensionContext, services: Services): void | Record<string, unknown>;
}
