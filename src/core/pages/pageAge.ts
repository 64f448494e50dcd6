/** When git first saw a page file and when it last changed it. */
export interface PageHistory {
  added: Date;
  changed: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Pages added within this many days are "recently added". */
export const RECENT_DAYS = 30;

/**
 * The age tag shown in the Pages tree and given to the model: "recently added", "stable for N
 * months", "changed N days ago" or "age unknown", with "(+N)" when the page has corroborations.
 */
export function pageAgeTag(history: PageHistory | undefined, now: Date, corroborations = 0): string {
  const suffix = corroborations > 0 ? ` (+${corroborations})` : '';
  if (!history) return `age unknown${suffix}`;
  const sinceAdded = (now.getTime() - history.added.getTime()) / DAY_MS;
  if (sinceAdded < RECENT_DAYS) return `recently added${suffix}`;
  const months = monthsBetween(history.changed, now);
  if (months >= 1) return `stable for ${months} month${months === 1 ? '' : 's'}${suffix}`;
  const days = Math.max(0, Math.floor((now.getTime() - history.changed.getTime()) / DAY_MS));
  return `${days === 0 ? 'changed today' : `changed ${days} day${days === 1 ? '' : 's'} ago`}${suffix}`;
}

function monthsBetween(from: Date, to: Date): number {
  let months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
  if (to.getUTCDate() < from.getUTCDate()) months--;
  return Math.max(0, months);
}

/**
 * Reads `git log --format=%x00%ct --name-only` output (newest commit first) into per-page history,
 * keyed by slug. Files under other folders are ignored.
 */
export function parsePageHistory(log: string, pagesDir = '.wiki/pages/'): Map<string, PageHistory> {
  const history = new Map<string, PageHistory>();
  for (const commit of log.split('\0').slice(1)) {
    const [stamp, ...files] = commit.split('\n');
    const when = new Date(Number(stamp.trim()) * 1000);
    if (Number.isNaN(when.getTime())) continue;
    for (const file of files) {
      const name = file.trim();
      if (!name.startsWith(pagesDir) || !name.endsWith('.md') || name.slice(pagesDir.length).includes('/')) continue;
      const slug = name.slice(pagesDir.length, -3);
      const known = history.get(slug);
      // Newest first: the first sighting is the last change, the last sighting the addition.
      if (!known) history.set(slug, { added: when, changed: when });
      else known.added = when;
    }
  }
  return history;
}

/** Slug → age tag for these pages, from their git history. */
export function pageAgeTags(history: ReadonlyMap<string, PageHistory>, pages: readonly { slug: string; frontmatter: { corroborations?: number } }[], now: Date): Map<string, string> {
  return new Map(pages.map((page) => [page.slug, pageAgeTag(history.get(page.slug), now, page.frontmatter.corroborations ?? 0)]));
}

/** When git last changed each page, by slug: what upkeep judges "untouched" by. */
export function lastChanged(history: ReadonlyMap<string, PageHistory>): Map<string, Date> {
  return new Map([...history].map(([slug, { changed }]) => [slug, changed]));
}
