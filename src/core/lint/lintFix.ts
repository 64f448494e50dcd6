import { findCitations } from '../drift/citations';
import type { DriftReport } from '../drift/driftEngine';
import { DriftCode } from '../drift/driftCodes';
import { LINK, maskCode, splitLinkTarget } from '../pages/markdown';
import type { PageFrontmatter, WikiPage } from '../model';
import type { Wiki, WikiWrites } from '../wiki/wiki';

/** What "fix safe lint problems" changes (or would change, in a dry run). */
export interface LintFixPlan {
  /** Per page, the links to deleted pages that become plain text. */
  unlinked: { slug: string; targets: string[] }[];
  /** Pages all of whose code citations are missing, to be marked stale. */
  stale: { slug: string; citations: number }[];
}

/**
 * The safe fixes: links to pages that once existed (the log names them) and were deleted become
 * plain text; pages whose every code citation is missing are marked stale. A typo'd link is left
 * alone: only a person knows what it meant.
 */
export async function planLintFixes(wiki: Wiki, pages: readonly WikiPage[], drift: DriftReport): Promise<LintFixPlan> {
  const existing = new Set(pages.map((page) => page.slug));
  const { entries } = await wiki.readLog();
  const everSeen = new Set(entries.flatMap((entry) => (Array.isArray(entry.pages) ? entry.pages : [])));
  // A link to a renamed page (merged from a branch made before the rename) needs a person to point it at the new name, not plain text.
  const renamed = new Set(entries.filter((entry) => entry.op === 'rename' && typeof entry.from === 'string').map((entry) => entry.from as string));
  const deleted = new Set([...everSeen].filter((slug) => !existing.has(slug) && !renamed.has(slug)));
  const missing = new Map<string, Set<string>>();
  for (const issue of drift.issues) {
    if (issue.code !== DriftCode.MissingFile && issue.code !== DriftCode.MissingSymbol) continue;
    missing.set(issue.page, (missing.get(issue.page) ?? new Set()).add(issue.data.citation));
  }
  const plan: LintFixPlan = { unlinked: [], stale: [] };
  for (const page of pages.filter((p) => p.valid)) {
    const targets = [...new Set(page.links.map((link) => link.target).filter((target) => deleted.has(target)))];
    if (targets.length) plan.unlinked.push({ slug: page.slug, targets });
    const citations = new Set(findCitations(page).filter((c) => !c.outside).map((c) => c.text));
    const gone = missing.get(page.relPath);
    if (citations.size && gone && [...citations].every((c) => gone.has(c)) && page.frontmatter.status === 'active') {
      plan.stale.push({ slug: page.slug, citations: citations.size });
    }
  }
  return plan;
}

/** Applies a fix plan under the wiki's write lock: each page is re-read and rewritten atomically, the index rebuilt, one log line. */
export function applyLintFixes(wiki: Wiki, plan: LintFixPlan, today: string): Promise<{ pages: string[]; indexChanged: boolean }> {
  return wiki.exclusive((writes) => applyLocked(wiki, writes, plan, today));
}

async function applyLocked(wiki: Wiki, writes: WikiWrites, plan: LintFixPlan, today: string): Promise<{ pages: string[]; indexChanged: boolean }> {
  const touched = new Set<string>();
  const stale = new Map(plan.stale.map((entry) => [entry.slug, entry.citations]));
  const unlinked = new Map(plan.unlinked.map((entry) => [entry.slug, entry.targets]));
  for (const slug of new Set([...stale.keys(), ...unlinked.keys()])) {
    const page = await wiki.readPage(slug);
    if (!page?.valid) continue;
    const fm = page.frontmatter as PageFrontmatter;
    const body = unlinked.has(slug) ? unlink(page.body, new Set(unlinked.get(slug))) : page.body;
    const count = stale.get(slug);
    const frontmatter: PageFrontmatter = count
      ? { ...fm, status: 'stale', stale_reason: `All ${count} code citation${count === 1 ? '' : 's'} of this page point at code that no longer exists.`, updated: today }
      : { ...fm, updated: today };
    await writes.writePage(slug, frontmatter, body, page.extraFields);
    touched.add(slug);
  }
  const { changed } = await writes.rebuildIndex();
  if (touched.size || changed) {
    await wiki.appendLog({ op: 'lint-fix', pages: [...touched].sort(), unlinked: plan.unlinked, stale: plan.stale.map((s) => s.slug), indexRebuilt: changed });
  }
  return { pages: [...touched].sort(), indexChanged: changed };
}

/** `[[gone]]` becomes "gone" (hyphens as spaces) and `[[gone|label]]` becomes "label"; code is untouched. */
export function unlink(body: string, targets: ReadonlySet<string>): string {
  const masked = maskCode(body, { inlineCode: true });
  let out = '';
  let last = 0;
  for (const match of masked.matchAll(LINK)) {
    const target = splitLinkTarget(match[1]).slug;
    if (!targets.has(target)) continue;
    const at = match.index ?? 0;
    out += body.slice(last, at) + (match[2]?.trim() || target.replace(/-/g, ' '));
    last = at + match[0].length;
  }
  return out + body.slice(last);
}
