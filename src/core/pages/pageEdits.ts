import { WikiError } from '../errors';
import type { PageFrontmatter, WikiPage } from '../model';
import type { Wiki, WikiWrites } from '../wiki/wiki';

function requireValid(page: WikiPage): PageFrontmatter {
  if (!page.valid) {
    throw new WikiError('invalid-page', `${page.relPath} has frontmatter problems, so it cannot be updated automatically.`, 'Fix the problems shown in the Problems panel first.');
  }
  return page.frontmatter as PageFrontmatter;
}

/** Runs an edit of one page on its text as it is on disk, under the wiki's write lock, so an edit made meanwhile is kept. */
function editPage<T>(wiki: Wiki, loaded: WikiPage, edit: (page: WikiPage, writes: WikiWrites) => Promise<T>): Promise<T> {
  return wiki.exclusive(async (writes) => edit((await wiki.readPage(loaded.slug)) ?? loaded, writes));
}

/** Marks a page stale with a reason, atomically, and logs it. */
export function markStale(wiki: Wiki, loaded: WikiPage, reason: string, today: string): Promise<void> {
  return editPage(wiki, loaded, async (page, writes) => {
    const frontmatter = requireValid(page);
    await writes.writePage(page.slug, { ...frontmatter, status: 'stale', stale_reason: reason.trim(), updated: today }, page.body, page.extraFields);
    await wiki.appendLog({ op: 'mark-stale', pages: [page.slug], reason: reason.trim() });
  });
}

/**
 * Rewrites every `from` citation in the body to `to`, carrying its anchor along: the code moved,
 * it did not change, so the page stays verified.
 */
/**
 * Rewrites a citation everywhere on a page and moves its anchor to the new text. `anchor`, when
 * given, is recorded instead: a rename's new name changes the signature that was verified.
 */
export function relocateCitation(wiki: Wiki, loaded: WikiPage, from: string, to: string, anchor?: string): Promise<number> {
  return editPage(wiki, loaded, (page, writes) => relocateIn(wiki, writes, page, from, to, anchor));
}

async function relocateIn(wiki: Wiki, writes: WikiWrites, page: WikiPage, from: string, to: string, anchor?: string): Promise<number> {
  const frontmatter = requireValid(page);
  let count = 0;
  const body = page.body.replace(/(`+)\s*([^`\n]+?)\s*\1/g, (whole, ticks: string, text: string) => {
    if (text.replace(/\(\)$/, '') !== from) return whole;
    count++;
    return `${ticks}${to}${ticks}`;
  });
  if (!count) return 0;
  const anchors = { ...frontmatter.anchors };
  if (anchors[from] !== undefined || anchor !== undefined) {
    anchors[to] = anchor ?? anchors[from];
    delete anchors[from];
  }
  await writes.writePage(page.slug, { ...frontmatter, anchors }, body, page.extraFields);
  await wiki.appendLog({ op: 'relocate-citation', pages: [page.slug], from, to });
  return count;
}
