import * as path from 'node:path';
import * as vscode from 'vscode';
import { findCitations } from '../../core/drift/citations';
import type { WikiSnapshots } from './wikiSnapshots';
import type { WorkspaceWikis } from './workspaceWikis';

export interface CitingPage {
  slug: string;
  title: string;
  stale: boolean;
  uri: vscode.Uri;
}

/** Reverse citations: which wiki pages cite each symbol of a source file (hover and CodeLens). */
export class CitationIndex {
  private cache?: Promise<Map<string, Map<string, CitingPage[]>>>;

  constructor(private readonly services: { wikis: WorkspaceWikis; snapshots: WikiSnapshots }) {
    services.snapshots.onDidUpdate(() => (this.cache = undefined));
  }

  /** symbol (or '' for the whole file) -> pages, for one source file. */
  async forFile(uri: vscode.Uri): Promise<Map<string, CitingPage[]> | undefined> {
    const wiki = this.services.wikis.forUri(uri);
    if (!wiki) return undefined;
    return (await (this.cache ??= this.build())).get(path.join(wiki.root, wiki.relative(uri.fsPath)));
  }

  private async build(): Promise<Map<string, Map<string, CitingPage[]>>> {
    const index = new Map<string, Map<string, CitingPage[]>>();
    for (const wiki of await this.services.wikis.existing()) {
      const snapshot = await this.services.snapshots.get(wiki);
      for (const page of snapshot.pages) {
        const citing = { slug: page.slug, title: page.frontmatter.title ?? page.slug, stale: (page.frontmatter.status ?? 'active') !== 'active', uri: vscode.Uri.file(path.join(wiki.root, page.relPath)) };
        for (const citation of findCitations(page)) {
          if (citation.outside) continue;
          const file = path.join(wiki.root, citation.path);
          const bySymbol = index.get(file) ?? new Map<string, CitingPage[]>();
          const list = bySymbol.get(citation.symbol ?? '') ?? [];
          if (!list.some((p) => p.uri.fsPath === citing.uri.fsPath)) list.push(citing);
          bySymbol.set(citation.symbol ?? '', list);
          index.set(file, bySymbol);
        }
      }
    }
    return index;
  }
}
