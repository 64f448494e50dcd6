import { LintCode } from './lintCodes';
import { isArchived, type LintIssue, type WikiPage } from '../model';
import { issue } from '../pages/page';
import { lineRange } from '../text/text';

/** Deterministic lint over all pages: each page's own problems plus cross-page checks. */
export function lintPages(pages: readonly WikiPage[]): LintIssue[] {
  const bySlug = new Map(pages.map((page) => [page.slug, page]));
  const issues: LintIssue[] = pages.flatMap((page) => page.problems);
  const linkedFrom = new Map<string, Set<string>>();

  for (const page of pages) {
    const active = (page.frontmatter.status ?? 'active') === 'active';
    for (const link of page.links) {
      const target = bySlug.get(link.target);
      if (!target) {
        issues.push(issue(LintCode.BrokenLink, `Link [[${link.target}]] points to no page.`, page.relPath, link.range, { target: link.target }));
        continue;
      }
      if (target !== page) {
        if (!linkedFrom.has(target.slug)) linkedFrom.set(target.slug, new Set());
        linkedFrom.get(target.slug)!.add(page.slug);
      }
      if (!active) continue;
      if (target.frontmatter.status === 'stale') {
        const reason = target.frontmatter.stale_reason ? ` (${target.frontmatter.stale_reason})` : '';
        issues.push(issue(LintCode.LinksToStale, `[[${target.slug}]] is stale${reason}; check the claim or link elsewhere.`, page.relPath, link.range, { target: target.slug }));
      } else if (target.frontmatter.status === 'archived') {
        issues.push(issue(LintCode.LinksToArchived, `[[${target.slug}]] is archived: it is kept for history, but no longer maintained. Link a current page if there is one.`, page.relPath, link.range, { target: target.slug }));
      } else if (target.frontmatter.status === 'superseded') {
        const replacement = target.frontmatter.superseded_by;
        const data: Record<string, string> = { target: target.slug, ...(replacement ? { replacement } : {}) };
        const next = replacement ? ` by [[${replacement}]]` : '';
        issues.push(issue(LintCode.LinksToSuperseded, `[[${target.slug}]] is superseded${next}.`, page.relPath, link.range, data));
      }
    }
  }

  const readable = pages.filter((page) => page.readable);
  if (readable.length > 1) {
    for (const page of readable) {
      // Filed conversations are found through the index and chat retrieval, not through links.
      if (!linkedFrom.has(page.slug) && page.frontmatter.topic !== 'conversations' && !isArchived(page)) {
        issues.push(issue(LintCode.OrphanPage, `No other page links to [[${page.slug}]]. Link it from a related page.`, page.relPath, lineRange(0, 3)));
      }
    }
  }

  const byTitle = new Map<string, WikiPage[]>();
  for (const page of pages) {
    const title = page.frontmatter.title?.toLowerCase();
    if (title) byTitle.set(title, [...(byTitle.get(title) ?? []), page]);
  }
  for (const same of byTitle.values()) {
    if (same.length < 2) continue;
    for (const page of same) {
      const others = same.filter((p) => p !== page).map((p) => p.slug);
      issues.push(issue(LintCode.DuplicateTitle, `Title "${page.frontmatter.title}" is also used by ${others.map((s) => `[[${s}]]`).join(', ')}.`, page.relPath, fieldRange(page, 'title'), { others: others.join(',') }));
    }
  }

  for (const page of pages) {
    const replacement = page.frontmatter.superseded_by;
    if (replacement && !bySlug.has(replacement)) {
      issues.push(issue(LintCode.SupersededByMissing, `superseded_by names [[${replacement}]], which does not exist.`, page.relPath, fieldRange(page, 'superseded_by'), { target: replacement }));
    }
  }
  return issues.sort(compareIssues);
}

function fieldRange(page: WikiPage, field: string) {
  return lineRange(page.fieldLines[field] ?? 0, 1000);
}

function compareIssues(a: LintIssue, b: LintIssue): number {
  return a.page.localeCompare(b.page) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character || a.code.localeCompare(b.code);
}
