import { WikiError } from '../errors';
import type { PageFrontmatter, WikiPage } from '../model';
import type { Wiki, WikiWrites } from '../wiki/wiki';
import { findCitations } from './citations';
import type { DriftEngine } from './driftEngine';
import { anchorAt, parseAnchor, sameFingerprints } from './symbols';

export interface StampResult {
  slug: string;
  stamped: string[];
  /** Citations that do not resolve, so they cannot be stamped. */
  unresolved: string[];
  /** Anchors of citations no longer on the page, removed by a stamp of the whole page. */
  dropped?: string[];
}

export interface StampOptions {
  /** Only citations without an anchor. */
  onlyMissing?: boolean;
  /** Only these citations (by text). */
  citations?: readonly string[];
  /** The commit the code was verified at (HEAD), recorded in each new anchor. */
  verifiedAt?: string;
}

/**
 * Records the current fingerprint of a page's citations in its `anchors` (all of them, only the
 * ones without an anchor, or only `citations`), writes the page atomically and logs a `stamp`.
 * A stamp of the whole page also drops the anchors of citations no longer on it: nothing checks
 * them, and they would outlive the text they verified. The page is read again under the wiki's
 * write lock, so an edit made meanwhile is kept.
 */
export function stampPage(
  wiki: Wiki,
  engine: DriftEngine,
  loaded: WikiPage,
  options: StampOptions = {},
): Promise<StampResult> {
  return wiki.exclusive(async (writes) => {
    const page = (await wiki.readPage(loaded.slug)) ?? loaded;
    return stampLocked(wiki, writes, engine, page, options);
  });
}

async function stampLocked(wiki: Wiki, writes: WikiWrites, engine: DriftEngine, page: WikiPage, options: StampOptions): Promise<StampResult> {
  if (!page.valid) {
    throw new WikiError('invalid-page', `${page.relPath} has frontmatter problems, so its anchors cannot be updated.`, 'Fix the problems shown in the Problems panel first.');
  }
  const anchors = { ...(page.frontmatter.anchors ?? {}) };
  const stamped: string[] = [];
  const unresolved: string[] = [];
  const citations = findCitations(page);
  const cited = new Set(citations.map((citation) => citation.text));
  const dropped = options.citations ? [] : Object.keys(anchors).filter((text) => !cited.has(text));
  for (const text of dropped) delete anchors[text];
  for (const citation of citations) {
    if (options.citations && !options.citations.includes(citation.text)) continue;
    if (options.onlyMissing && anchors[citation.text]) continue;
    const current = await engine.currentAnchor(citation);
    if (current === '') continue; // a folder: its existence is checked each time, there is nothing to record
    const anchor = current && anchorAt(current, options.verifiedAt);
    const recorded = anchors[citation.text];
    if (!anchor) unresolved.push(citation.text);
    else if (recorded !== anchor && !stillVerified(recorded, anchor)) {
      anchors[citation.text] = anchor;
      stamped.push(citation.text);
    }
  }
  if (stamped.length || dropped.length) {
    await writes.writePage(page.slug, { ...(page.frontmatter as PageFrontmatter), anchors }, page.body, page.extraFields);
    await wiki.appendLog({ op: 'stamp', pages: [page.slug], citations: stamped, ...(dropped.length ? { dropped } : {}) });
  }
  return { slug: page.slug, stamped, unresolved, ...(dropped.length ? { dropped } : {}) };
}

/**
 * An anchor whose code is as it was verified keeps its commit: a review of a page changes only
 * the anchors of code that changed, and a committed wiki shows no churn for the rest. (An anchor
 * without a commit takes one: "what changed" needs it.)
 */
function stillVerified(recorded: string | undefined, anchor: string): boolean {
  const previous = recorded === undefined ? undefined : parseAnchor(recorded);
  return previous?.at !== undefined && sameFingerprints(previous, parseAnchor(anchor));
}
