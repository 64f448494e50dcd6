import { findCitations, type Citation } from '../drift/citations';
import type { Range, WikiPage } from '../model';

/** One `[[link]]` in a page, where it is, and the text of its line (for the Backlinks view and the CLI). */
export interface LinkReference {
  /** Slug of the page the link is in. */
  from: string;
  /** Workspace-relative path of that page. */
  relPath: string;
  /** Slug the link points to. */
  target: string;
  heading?: string;
  range: Range;
  /** The line the link is on, trimmed. */
  lineText: string;
}

/** One code citation in a page. */
export interface CitationReference {
  from: string;
  relPath: string;
  citation: Citation;
}

/**
 * Forward links and backlinks of a set of pages, with line and range; citations by the code they
 * cite. Built once per list of pages (front ends hand out the same array until a page changes),
 * and shared by references, the Backlinks view, the CLI and rename.
 */
export class LinkIndex {
  private static readonly built = new WeakMap<readonly WikiPage[], LinkIndex>();
  private readonly incoming = new Map<string, LinkReference[]>();
  private readonly bySlug = new Map<string, WikiPage>();
  private cited?: Map<string, CitationReference[]>;

  static of(pages: readonly WikiPage[]): LinkIndex {
    let index = LinkIndex.built.get(pages);
    if (!index) {
      index = new LinkIndex(pages);
      LinkIndex.built.set(pages, index);
    }
    return index;
  }

  private constructor(private readonly pages: readonly WikiPage[]) {
    for (const page of pages) {
      this.bySlug.set(page.slug, page);
      if (!page.links.length) continue;
      const lines = page.body.split('\n');
      for (const link of page.links) {
        const reference: LinkReference = {
          from: page.slug, relPath: page.relPath, target: link.target, ...(link.heading ? { heading: link.heading } : {}),
          range: link.range, lineText: (lines[link.range.start.line - page.bodyStartLine] ?? '').trim(),
        };
        const list = this.incoming.get(link.target);
        if (list) list.push(reference);
        else this.incoming.set(link.target, [reference]);
      }
    }
  }

  page(slug: string): WikiPage | undefined {
    return this.bySlug.get(slug);
  }

  /** Links from other pages to `slug`, by page then position. */
  backlinks(slug: string): LinkReference[] {
    return (this.incoming.get(slug) ?? []).filter((reference) => reference.from !== slug);
  }

  /** Every link to `slug`, the page's own links to itself included (what a rename rewrites). */
  linksTo(slug: string): LinkReference[] {
    return this.incoming.get(slug) ?? [];
  }

  /** Slugs of the pages that link to `slug`, sorted. */
  linkingPages(slug: string): string[] {
    return [...new Set(this.backlinks(slug).map((reference) => reference.from))].sort();
  }

  /** Every citation of the same code (`path` and symbol) in any page. */
  citationsOf(citation: Pick<Citation, 'path' | 'symbol'>): CitationReference[] {
    return this.citationMap().get(citationKey(citation)) ?? [];
  }

  private citationMap(): Map<string, CitationReference[]> {
    if (this.cited) return this.cited;
    const cited = new Map<string, CitationReference[]>();
    for (const page of this.pages) {
      if (!page.readable) continue;
      for (const citation of findCitations(page)) {
        if (citation.outside) continue;
        const key = citationKey(citation);
        const list = cited.get(key) ?? [];
        list.push({ from: page.slug, relPath: page.relPath, citation });
        cited.set(key, list);
      }
    }
    this.cited = cited;
    return cited;
  }
}

function citationKey(citation: Pick<Citation, 'path' | 'symbol'>): string {
  return `${citation.path}\0${citation.symbol ?? ''}`;
}
