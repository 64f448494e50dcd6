import type { Topic } from '../model';
import { parseReplyJson, PLAN_LIMITS, PLAN_TOPICS, type PlanProblem } from '../ingest/plan';
import { isValidSlug } from '../pages/slug';
import type { RequiredPage } from './steering';

/** One page the librarian means to write: what it is for and the files it covers. */
export interface OutlinePage {
  slug: string;
  title: string;
  topic: Topic;
  purpose: string;
  files: string[];
}

/** A wiki small enough to review, large enough to cover a codebase's modules. */
export const OUTLINE_LIMITS = { minPages: 8, maxPages: 30, purposeChars: 300, files: 40, fileChars: 300 } as const;

const PAGE_KEYS = new Set(['slug', 'title', 'topic', 'purpose', 'files']);

/**
 * Reads the outline out of a model reply (`{ "pages": [...] }`, bare or fenced) and checks it:
 * 8 to 30 pages, unique slugs and titles, and every page `.wiki/generate.json` requires (by title).
 */
export function parseOutline(reply: string, required: readonly RequiredPage[]): { outline: OutlinePage[] } | { problems: PlanProblem[] } {
  const parsed = parseReplyJson(reply);
  if ('problems' in parsed) return parsed;
  const { data } = parsed;
  const problems: PlanProblem[] = [];
  if (!isRecord(data) || !Array.isArray(data.pages)) return { problems: [{ path: '$.pages', message: 'must be a list of pages' }] };
  for (const key of Object.keys(data)) if (key !== 'pages') problems.push({ path: `$.${key}`, message: 'is not part of the outline contract' });
  const pages = data.pages.map((item, i) => readPage(item, `pages[${i}]`, problems));
  const count = pages.length;
  if (count < OUTLINE_LIMITS.minPages || count > OUTLINE_LIMITS.maxPages) {
    problems.push({ path: '$.pages', message: `has ${count} pages; an outline has ${OUTLINE_LIMITS.minPages} to ${OUTLINE_LIMITS.maxPages}` });
  }
  const slugs = new Set<string>();
  const titles = new Set<string>();
  for (const [i, page] of pages.entries()) {
    if (page.slug && slugs.has(page.slug)) problems.push({ path: `pages[${i}].slug`, message: `"${page.slug}" appears twice` });
    if (page.title && titles.has(page.title.toLowerCase())) problems.push({ path: `pages[${i}].title`, message: `"${page.title}" appears twice` });
    slugs.add(page.slug);
    titles.add(page.title.toLowerCase());
  }
  for (const page of required) {
    if (!titles.has(page.title.toLowerCase())) problems.push({ path: '$.pages', message: `misses the page "${page.title}" that .wiki/generate.json requires (use that exact title)` });
  }
  return problems.length ? { problems } : { outline: pages };
}

function readPage(item: unknown, at: string, problems: PlanProblem[]): OutlinePage {
  const page: OutlinePage = { slug: '', title: '', topic: 'other', purpose: '', files: [] };
  if (!isRecord(item)) {
    problems.push({ path: at, message: 'must be an object' });
    return page;
  }
  for (const key of Object.keys(item)) if (!PAGE_KEYS.has(key)) problems.push({ path: `${at}.${key}`, message: 'is not part of the outline contract' });
  if (typeof item.slug === 'string' && isValidSlug(item.slug)) page.slug = item.slug;
  else problems.push({ path: `${at}.slug`, message: 'must be a slug: lowercase letters, digits and single hyphens, at most 80 characters' });
  page.title = line(item.title, `${at}.title`, PLAN_LIMITS.titleChars, problems);
  if (typeof item.topic === 'string' && PLAN_TOPICS.includes(item.topic as Topic)) page.topic = item.topic as Topic;
  else problems.push({ path: `${at}.topic`, message: `must be one of ${PLAN_TOPICS.join(', ')}` });
  page.purpose = line(item.purpose, `${at}.purpose`, OUTLINE_LIMITS.purposeChars, problems);
  const files = item.files ?? [];
  if (Array.isArray(files) && files.length <= OUTLINE_LIMITS.files && files.every((file) => typeof file === 'string' && file.trim() && file.length <= OUTLINE_LIMITS.fileChars)) {
    page.files = files.map((file: string) => file.trim());
  } else problems.push({ path: `${at}.files`, message: `must be a list of at most ${OUTLINE_LIMITS.files} workspace-relative paths` });
  return page;
}

function line(value: unknown, at: string, max: number, problems: PlanProblem[]): string {
  if (typeof value === 'string' && value.trim() && !/[\r\n]/.test(value.trim()) && value.length <= max) return value.trim();
  problems.push({ path: at, message: `must be one line of at most ${max} characters` });
  return '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
