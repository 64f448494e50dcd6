import type { WikiPage } from '../model';
import { sourceRef } from '../ingest/memory';
import type { OutlinePage } from './outline';

/** The `sources` entry of a generated page: `generate:<slug>`. A run skips pages that have one. */
export function generateSource(slug: string): string {
  return `generate:${slug}`;
}

/** Whether a page was written by an earlier generate run (its `sources` say so). */
export function isGenerated(page: WikiPage): boolean {
  return (page.frontmatter.sources ?? []).some((entry) => sourceRef(entry).startsWith('generate:'));
}

/**
 * The outline's pages still to write, and the ones an earlier run already wrote (same slug,
 * generated): a run that stopped (budget, Ctrl+C, a rejected page) resumes where it was.
 */
export function pagesToWrite(outline: readonly OutlinePage[], pages: readonly WikiPage[]): { write: OutlinePage[]; done: OutlinePage[] } {
  const generated = new Set(pages.filter(isGenerated).map((page) => page.slug));
  return { write: outline.filter((page) => !generated.has(page.slug)), done: outline.filter((page) => generated.has(page.slug)) };
}
