import { WikiError } from '../errors';
import { LINK, maskCode, splitLinkTarget } from '../pages/markdown';
import type { WikiPage } from '../model';
import { parsePage } from '../pages/page';
import { slugProblem } from '../pages/slug';
import type { Wiki, WikiWrites } from '../wiki/wiki';

/** Linking pages rewritten at once. */
export const WRITE_BATCH = 16;

/** What renaming a page changes: the page's new file, and each page whose links follow. */
export interface RenamePlan {
  from: string;
  to: string;
  /** Text of the page under its new slug (its links to itself follow too). */
  renamedText: string;
  /** Pages whose `[[from]]` links (and `superseded_by: from`) become `to`, with their new text. */
  linking: { slug: string; text: string; links: number }[];
  /** The new file already holds `renamedText`: an interrupted rename of the same page, resumed. */
  resumed: boolean;
}

export interface RenameResult {
  from: string;
  to: string;
  /** Slugs of the pages whose links were rewritten. */
  updated: string[];
  links: number;
}

/**
 * Plans a rename from the page files on disk. Refused (WikiError, nothing written) when `to` is
 * not a valid slug, `from` is no page, or `to` is taken by another page.
 */
export async function planRename(wiki: Wiki, from: string, to: string): Promise<RenamePlan> {
  const problem = slugProblem(to);
  if (problem) throw new WikiError('invalid-slug', `"${to.slice(0, 100)}" is not a valid page slug: ${problem}.`, 'Pick another name; nothing was changed.');
  if (from === to) throw new WikiError('invalid-slug', `The page is already called "${to}".`, 'Pick another name; nothing was changed.');
  const oldText = await wiki.readPageText(from);
  if (oldText === undefined) throw new WikiError('invalid-page', `There is no page "${from}".`, 'Check the slug (the file name in .wiki/pages/ without .md).');
  const renamedText = retargetPageText(oldText, from, to, from).text;
  const existing = await wiki.readPageText(to);
  const resumed = existing !== undefined && existing === renamedText;
  if (existing !== undefined && !resumed) {
    throw new WikiError('invalid-slug', `A page called "${to}" already exists.`, 'Pick another name, or merge the two pages by hand; nothing was changed.');
  }
  const pages = await wiki.loadPages();
  return { from, to, renamedText, linking: await linkingEdits(wiki, pages, from, to, new Set([from, to])), resumed };
}

/** The pages (other than `skip`) that link to `from` or name it in superseded_by, with their file text retargeted to `to`. */
async function linkingEdits(wiki: Wiki, pages: readonly WikiPage[], from: string, to: string, skip: ReadonlySet<string>): Promise<RenamePlan['linking']> {
  const edits: RenamePlan['linking'] = [];
  for (const page of pages) {
    if (skip.has(page.slug) || !page.readable) continue;
    if (!page.links.some((link) => link.target === from) && page.frontmatter.superseded_by !== from) continue;
    const text = await wiki.readPageText(page.slug);
    if (text !== undefined) edits.push({ slug: page.slug, ...retargetPageText(text, from, to, page.slug) });
  }
  return edits;
}

/**
 * Renames a page under the wiki's write lock, in an order that never leaves a link to nothing:
 * 1. the page is written under its new slug (the old file still answers every old link);
 * 2. each linking page is rewritten to the new slug (both files exist, so every link resolves);
 * 3. the old file is removed, the index rebuilt, and one `rename` line appended to the log.
 * A crash leaves at worst both files (lint reports the duplicate title) and some links still on
 * the old slug; running the same rename again resumes it.
 */
export function renamePage(wiki: Wiki, from: string, to: string): Promise<RenameResult> {
  return wiki.exclusive(async (writes) => applyRename(wiki, writes, await planRename(wiki, from, to), 'rename'));
}

/**
 * After the page file was moved by someone else (a rename in VS Code's Explorer, `git mv`): every
 * link to `from` follows to `to`, the index is rebuilt and the log gets a `rename` line.
 */
export function followMovedPage(wiki: Wiki, from: string, to: string): Promise<RenameResult> {
  return wiki.exclusive(async (writes) => {
    const problem = slugProblem(to);
    if (problem) throw new WikiError('invalid-slug', `"${to.slice(0, 100)}.md" is not a valid page file name, so links to [[${from}]] were left as they are: ${problem}.`, 'Rename the file again to a valid slug.');
    if ((await wiki.readPageText(to)) === undefined) throw new WikiError('invalid-page', `There is no page "${to}" to point the links at.`);
    const pages = await wiki.loadPages();
    const plan: RenamePlan = { from, to, renamedText: '', linking: await linkingEdits(wiki, pages, from, to, new Set([to])), resumed: true };
    // The moved page's own links to itself follow too.
    const self = pages.find((page) => page.slug === to);
    if (self?.links.some((link) => link.target === from)) plan.linking.push({ slug: to, ...retargetPageText((await wiki.readPageText(to))!, from, to, to) });
    return applyRename(wiki, writes, plan, 'file-move');
  });
}

async function applyRename(wiki: Wiki, writes: WikiWrites, plan: RenamePlan, via: string): Promise<RenameResult> {
  if (!plan.resumed) await writes.writePageText(plan.to, plan.renamedText);
  // The linking pages in any order (a few at a time: each write waits for its fsync).
  for (let i = 0; i < plan.linking.length; i += WRITE_BATCH) {
    await Promise.all(plan.linking.slice(i, i + WRITE_BATCH).map((edit) => writes.writePageText(edit.slug, edit.text)));
  }
  if (via === 'rename') await writes.removePage(plan.from);
  await writes.rebuildIndex();
  const updated = plan.linking.map((edit) => edit.slug).sort();
  const links = plan.linking.reduce((sum, edit) => sum + edit.links, 0);
  await wiki.appendLog({ op: 'rename', pages: [plan.from, plan.to], from: plan.from, to: plan.to, updated, links, via });
  return { from: plan.from, to: plan.to, updated, links };
}

/**
 * A page file's text with every `[[from]]`, `[[from|label]]` and `[[from#heading]]` pointing at
 * `to`, and `superseded_by: from` too. Links in fenced or inline code are left alone, as are plain
 * words; every other byte (line endings, frontmatter layout) is kept.
 */
export function retargetPageText(text: string, from: string, to: string, slug: string): { text: string; links: number } {
  const crlf = text.includes('\r\n');
  const normal = crlf ? text.replace(/\r\n/g, '\n') : text;
  const page = parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(normal));
  const lines = normal.split('\n');
  let head = lines.slice(0, page.bodyStartLine).join('\n');
  if (page.bodyStartLine > 0) head += '\n';
  const body = normal.slice(head.length);
  head = head.replace(/^(superseded_by:[ \t]*["']?)([a-z0-9-]+)(["']?[ \t]*)$/m, (whole, before: string, value: string, after: string) => (value === from ? `${before}${to}${after}` : whole));
  const retargeted = retargetLinks(body, from, to);
  const out = head + retargeted.body;
  return { text: crlf ? out.replace(/\n/g, '\r\n') : out, links: retargeted.count };
}

/** `body` with the slug part of each link to `from` replaced by `to`; code is masked first, as lint does. */
export function retargetLinks(body: string, from: string, to: string): { body: string; count: number } {
  const masked = maskCode(body, { inlineCode: true });
  let out = '';
  let last = 0;
  let count = 0;
  for (const match of masked.matchAll(LINK)) {
    if (splitLinkTarget(match[1]).slug !== from) continue;
    const at = (match.index ?? 0) + 2 + (match[1].length - match[1].trimStart().length);
    out += body.slice(last, at) + to;
    last = at + from.length;
    count++;
  }
  return { body: out + body.slice(last), count };
}
