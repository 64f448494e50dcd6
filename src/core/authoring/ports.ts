import type { SourceSymbol } from '../drift/symbols';
import type { Range, WikiPage } from '../model';

/** What the page language service reads through; each front end builds these from its own adapters. */

/** The pages of one wiki as they are now; the same array until a page changes (indexes are kept per array). */
export interface PagesSource {
  pages(): Promise<readonly WikiPage[]>;
}

/** Workspace files, read through the guarded file access. Paths are workspace-relative with `/`. */
export interface WorkspaceFileLister {
  list(): Promise<readonly string[]>;
  /** The file's text, or undefined when it is missing or refused (a link out, a secret, too large). */
  read(relPath: string): Promise<string | undefined>;
}

/** Declarations of a source file (the drift engine's parser). */
export interface SymbolLister {
  symbolsOf(relPath: string, text: string): Promise<readonly SourceSymbol[]>;
}

/** The drift issue on a citation of a page, if any (code and message as the drift engine reports them). */
export interface DriftStatus {
  issueAt(pageRelPath: string, range: Range): Promise<{ code: string; message: string } | undefined>;
}

/** Page ages from history ("stable for 3 months"), where known. */
export interface PageAgeSource {
  ageOf(slug: string): Promise<string | undefined>;
}

/** A page open in an editor: its (maybe unsaved) text. */
export interface PageDocument {
  slug: string;
  relPath: string;
  text: string;
}
