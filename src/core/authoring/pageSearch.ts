import { WikiRetriever } from '../chat/retrieval';
import type { WikiPage } from '../model';
import { bestFuzzyScore } from './fuzzy';
import { LinkIndex } from './linkIndex';

export interface PageHit {
  slug: string;
  title: string;
  summary: string;
  relPath: string;
  /** The page links to the active page. */
  backlink: boolean;
}

/**
 * "Go to wiki page": the chat's retrieval index (titles, summaries, tags and text, stemmed) plus
 * fuzzy title matching for half-typed words; the active page's backlinks come first.
 */
export class PageSearch {
  private static readonly retrievers = new WeakMap<readonly WikiPage[], WikiRetriever>();

  constructor(private readonly pages: readonly WikiPage[]) {}

  search(query: string, activeSlug?: string, limit = 50): PageHit[] {
    const index = LinkIndex.of(this.pages);
    const linking = new Set(activeSlug ? index.linkingPages(activeSlug) : []);
    const readable = this.pages.filter((page) => page.readable && page.slug !== activeSlug);
    const order = new Map<string, number>();
    const trimmed = query.trim();
    if (!trimmed) {
      readable.forEach((page) => order.set(page.slug, 0));
    } else {
      const retrieved = this.retriever().search(trimmed, limit, { passages: false });
      retrieved.forEach((hit, i) => order.set(hit.slug, 1000 - i));
      for (const page of readable) {
        const score = bestFuzzyScore(trimmed, [page.frontmatter.title ?? page.slug, page.slug, ...(page.frontmatter.tags ?? [])]);
        if (score !== undefined) order.set(page.slug, Math.max(order.get(page.slug) ?? -Infinity, score));
      }
    }
    const hits = readable.filter((page) => order.has(page.slug) && page.slug !== activeSlug);
    hits.sort((a, b) => Number(linking.has(b.slug)) - Number(linking.has(a.slug)) || order.get(b.slug)! - order.get(a.slug)! || (a.frontmatter.title ?? a.slug).localeCompare(b.frontmatter.title ?? b.slug));
    return hits.slice(0, limit).map((page) => ({
      slug: page.slug, title: page.frontmatter.title ?? page.slug, summary: page.frontmatter.summary ?? '', relPath: page.relPath, backlink: linking.has(page.slug),
    }));
  }

  private retriever(): WikiRetriever {
    let retriever = PageSearch.retrievers.get(this.pages);
    if (!retriever) {
      retriever = new WikiRetriever(this.pages);
      PageSearch.retrievers.set(this.pages, retriever);
    }
    return retriever;
  }
}
