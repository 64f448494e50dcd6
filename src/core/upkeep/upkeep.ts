import { DriftCode } from '../drift/driftCodes';
import type { DriftIssue, DriftReport } from '../drift/driftEngine';
import type { PageFrontmatter, WikiPage } from '../model';
import type { Wiki, WikiWrites } from '../wiki/wiki';

/** Upkeep writes this at the start of `stale_reason`: only a page it marked stale does it bring back. */
export const UPKEEP_STALE_PREFIX = 'upkeep: ';

export interface UpkeepSettings {
  /** Today, YYYY-MM-DD. */
  today: string;
  /** Stale and superseded pages untouched this long are archived. */
  archiveAfterDays: number;
  /** When git last changed each page (by slug); a page's `updated` date counts too. */
  lastChanged?: ReadonlyMap<string, Date>;
}

/** What upkeep changes (or would, in a dry run). */
export interface UpkeepPlan {
  /** Active pages citing code that no longer exists, with those citations. */
  stale: { slug: string; citations: string[] }[];
  /** Pages upkeep marked stale whose missing citations changed: the reason is rewritten. */
  restaled: { slug: string; citations: string[] }[];
  /** Pages upkeep marked stale whose citations all resolve again. */
  reactivated: string[];
  /** Stale or superseded pages untouched for the archive period. */
  archived: { slug: string; was: 'stale' | 'superseded'; idleDays: number }[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Decides what upkeep changes from a drift report over the same pages. Only the deterministic
 * verdicts change a status (`missing-file`, `missing-symbol`): a person or the librarian decides
 * the rest.
 */
export function planUpkeep(pages: readonly WikiPage[], drift: DriftReport, settings: UpkeepSettings): UpkeepPlan {
  const missing = new Map<string, Set<string>>();
  for (const issue of drift.issues) {
    if (issue.code !== DriftCode.MissingFile && issue.code !== DriftCode.MissingSymbol) continue;
    missing.set(issue.page, (missing.get(issue.page) ?? new Set()).add(issue.data.citation));
  }
  const plan: UpkeepPlan = { stale: [], restaled: [], reactivated: [], archived: [] };
  const today = Date.parse(settings.today);
  for (const page of pages) {
    if (!page.valid) continue;
    const fm = page.frontmatter;
    const gone = [...(missing.get(page.relPath) ?? [])].sort();
    const byUpkeep = markedByUpkeep(fm);
    if (fm.status === 'active' && gone.length) plan.stale.push({ slug: page.slug, citations: gone });
    else if (byUpkeep && !gone.length) plan.reactivated.push(page.slug);
    else if (byUpkeep && fm.stale_reason !== staleReason(gone)) plan.restaled.push({ slug: page.slug, citations: gone });
    else if ((fm.status === 'stale' || fm.status === 'superseded') && !Number.isNaN(today)) {
      const idleDays = Math.floor((today - lastTouched(page, settings.lastChanged)) / DAY_MS);
      if (idleDays >= settings.archiveAfterDays) plan.archived.push({ slug: page.slug, was: fm.status, idleDays });
    }
  }
  return plan;
}

/** A page upkeep itself marked stale: the only kind it brings back or re-words. */
function markedByUpkeep(fm: Partial<PageFrontmatter>): boolean {
  return fm.status === 'stale' && (fm.stale_reason ?? '').startsWith(UPKEEP_STALE_PREFIX);
}

export function isEmptyPlan(plan: UpkeepPlan): boolean {
  return !plan.stale.length && !plan.restaled.length && !plan.reactivated.length && !plan.archived.length;
}

export function staleReason(citations: readonly string[]): string {
  const shown = citations.slice(0, 5).join(', ');
  const more = citations.length > 5 ? ` and ${citations.length - 5} more` : '';
  return `${UPKEEP_STALE_PREFIX}cited code no longer exists: ${shown}${more}`;
}

/** The later of the page's `updated` date and git's last change; 0 when neither is known. */
function lastTouched(page: WikiPage, lastChanged: ReadonlyMap<string, Date> | undefined): number {
  const updated = page.frontmatter.updated ? Date.parse(page.frontmatter.updated) : Number.NaN;
  const committed = lastChanged?.get(page.slug)?.getTime() ?? Number.NaN;
  return Math.max(Number.isNaN(updated) ? 0 : updated, Number.isNaN(committed) ? 0 : committed);
}

export interface UpkeepResult {
  /** Pages rewritten. */
  pages: string[];
  indexChanged: boolean;
}

/**
 * Applies a plan under the wiki's write lock. Each page is re-read first and changed only if it is
 * still as the plan saw it (another window or a person may have edited it meanwhile). The index is
 * rebuilt, and one `upkeep` line goes to the log when anything changed.
 */
export function applyUpkeep(wiki: Wiki, plan: UpkeepPlan, today: string): Promise<UpkeepResult> {
  return wiki.exclusive((writes) => applyLocked(wiki, writes, plan, today));
}

async function applyLocked(wiki: Wiki, writes: WikiWrites, plan: UpkeepPlan, today: string): Promise<UpkeepResult> {
  const done: Record<'stale' | 'restaled' | 'reactivated' | 'archived', string[]> = { stale: [], restaled: [], reactivated: [], archived: [] };
  const rewrite = async (slug: string, still: (fm: Partial<PageFrontmatter>) => boolean, change: (fm: PageFrontmatter) => PageFrontmatter, into: string[]) => {
    const page = await wiki.readPage(slug);
    if (!page?.valid || !still(page.frontmatter)) return;
    await writes.writePage(slug, change(page.frontmatter as PageFrontmatter), page.body, page.extraFields);
    into.push(slug);
  };
  for (const { slug, citations } of plan.stale) {
    await rewrite(slug, (fm) => fm.status === 'active', (fm) => ({ ...fm, status: 'stale', stale_reason: staleReason(citations), updated: today }), done.stale);
  }
  for (const { slug, citations } of plan.restaled) {
    // The reason only: the page was not touched by a person, so its `updated` date stays.
    await rewrite(slug, markedByUpkeep, (fm) => ({ ...fm, stale_reason: staleReason(citations) }), done.restaled);
  }
  for (const slug of plan.reactivated) {
    await rewrite(slug, markedByUpkeep, ({ stale_reason: _reason, ...fm }) => ({ ...fm, status: 'active', updated: today }), done.reactivated);
  }
  for (const { slug, was } of plan.archived) {
    await rewrite(slug, (fm) => fm.status === was, (fm) => ({ ...fm, status: 'archived' }), done.archived);
  }
  const pages = Object.values(done).flat().sort();
  const { changed } = await writes.rebuildIndex();
  if (pages.length) await wiki.appendLog({ op: 'upkeep', pages, ...done });
  return { pages, indexChanged: changed };
}

export interface UpkeepRun {
  plan: UpkeepPlan;
  pagesChecked: number;
  /** The drift the plan was made from (the editor offers updates for some of it). */
  issues: readonly DriftIssue[];
  /** Undefined in a dry run. */
  result?: UpkeepResult;
}

/** One upkeep pass, the same for every front end: drift over all pages, then the plan, applied unless `dryRun`. */
export async function runUpkeep(
  wiki: Wiki,
  deps: { check(pages: readonly WikiPage[]): Promise<DriftReport>; lastChanged(): Promise<ReadonlyMap<string, Date>> },
  options: { today: string; archiveAfterDays: number; dryRun: boolean },
): Promise<UpkeepRun> {
  const pages = await wiki.loadPages();
  const [report, lastChanged] = await Promise.all([deps.check(pages), deps.lastChanged()]);
  const plan = planUpkeep(pages, report, { today: options.today, archiveAfterDays: options.archiveAfterDays, lastChanged });
  return { plan, pagesChecked: pages.length, issues: report.issues, ...(options.dryRun ? {} : { result: await applyUpkeep(wiki, plan, options.today) }) };
}

export function upkeepSummary(plan: UpkeepPlan): string {
  return `${plan.stale.length} marked stale, ${plan.reactivated.length} active again, ${plan.archived.length} archived`;
}
