import { TOPICS, type Topic } from '../model';
import { PAGE_LIMITS } from '../pages/frontmatter';
import { isValidSlug } from '../pages/slug';

/** A page the librarian wants to create or rewrite. The body is the whole new markdown body. */
export interface PlannedPage {
  action: 'create' | 'update';
  slug: string;
  title: string;
  topic: Topic;
  summary: string;
  tags: string[];
  body: string;
  /** Code citations the body relies on; every one (and every one in the body) must resolve. */
  citations: string[];
}

/** An existing page that already holds what the source says. */
export interface Corroboration {
  slug: string;
  reason: string;
}

/** A `[[to]]` link to add to the page `from`. */
export interface CrossLink {
  from: string;
  to: string;
}

/** The librarian's answer to an ingest (or a lint fix): what to write, nothing written yet. */
export interface Plan {
  pages: PlannedPage[];
  corroborate: Corroboration[];
  links: CrossLink[];
}

/** Where in the reply a problem is (`pages[2].slug`) and what is wrong. */
export interface PlanProblem {
  path: string;
  message: string;
}

/** Limits that keep one reply from flooding the wiki. */
export const PLAN_LIMITS = {
  pages: 50,
  corroborations: 50,
  links: 100,
  titleChars: PAGE_LIMITS.titleChars,
  summaryChars: PAGE_LIMITS.summaryChars,
  bodyBytes: 64 * 1024,
  tags: 10,
  tagChars: 40,
  citationsPerPage: 100,
} as const;

/** Topics the librarian may choose; `conversations` is reserved for filed chats. */
export const PLAN_TOPICS: readonly Topic[] = TOPICS.filter((topic) => topic !== 'conversations');

const PAGE_KEYS = new Set(['action', 'slug', 'title', 'topic', 'summary', 'tags', 'body', 'citations']);
const TAG = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Reads a plan out of a model reply: a JSON object, bare or in one fenced block. The shape is
 * checked strictly; whether slugs exist and citations resolve is `validatePlan`'s job.
 */
export function parsePlan(reply: string): { plan: Plan } | { problems: PlanProblem[] } {
  const parsed = parseReplyJson(reply);
  return 'problems' in parsed ? parsed : readPlan(parsed.data);
}

/** The JSON object of a model reply (bare or in one fenced block), or why there is none. */
export function parseReplyJson(reply: string): { data: unknown } | { problems: PlanProblem[] } {
  const json = extractJson(reply);
  if (json === undefined) return { problems: [{ path: '$', message: 'The reply holds no JSON object.' }] };
  try {
    return { data: JSON.parse(json) };
  } catch (error) {
    return { problems: [{ path: '$', message: `The reply is not valid JSON: ${(error as Error).message}` }] };
  }
}

/** Checks a plan's shape strictly, wherever it came from: a model reply, or an agent's proposal. */
export function readPlan(data: unknown): { plan: Plan } | { problems: PlanProblem[] } {
  const problems: PlanProblem[] = [];
  if (!isRecord(data)) return { problems: [{ path: '$', message: 'The reply must be a JSON object.' }] };
  unknownKeys(data, new Set(['pages', 'corroborate', 'links']), '$', problems);
  const pages = arrayField(data, 'pages', '$', PLAN_LIMITS.pages, problems).map((item, i) => readPage(item, `pages[${i}]`, problems));
  const corroborate = arrayField(data, 'corroborate', '$', PLAN_LIMITS.corroborations, problems).map((item, i) => {
    const at = `corroborate[${i}]`;
    if (!isRecord(item)) return void problems.push({ path: at, message: 'must be an object' });
    unknownKeys(item, new Set(['slug', 'reason']), at, problems);
    return { slug: slugField(item, at, problems), reason: lineField(item, 'reason', at, PLAN_LIMITS.summaryChars, problems, true) };
  });
  const links = arrayField(data, 'links', '$', PLAN_LIMITS.links, problems).map((item, i) => {
    const at = `links[${i}]`;
    if (!isRecord(item)) return void problems.push({ path: at, message: 'must be an object' });
    unknownKeys(item, new Set(['from', 'to']), at, problems);
    return { from: slugField(item, at, problems, 'from'), to: slugField(item, at, problems, 'to') };
  });
  if (problems.length) return { problems };
  return { plan: { pages: pages as PlannedPage[], corroborate: corroborate as Corroboration[], links: links as CrossLink[] } };
}

function readPage(item: unknown, at: string, problems: PlanProblem[]): PlannedPage | undefined {
  if (!isRecord(item)) {
    problems.push({ path: at, message: 'must be an object' });
    return undefined;
  }
  unknownKeys(item, PAGE_KEYS, at, problems);
  const action = item.action;
  if (action !== 'create' && action !== 'update') problems.push({ path: `${at}.action`, message: 'must be "create" or "update"' });
  const topic = item.topic;
  if (typeof topic !== 'string' || !PLAN_TOPICS.includes(topic as Topic)) {
    problems.push({ path: `${at}.topic`, message: `must be one of ${PLAN_TOPICS.join(', ')}` });
  }
  const body = item.body;
  if (typeof body !== 'string' || !body.trim()) problems.push({ path: `${at}.body`, message: 'must be non-empty markdown' });
  else if (new TextEncoder().encode(body).length > PLAN_LIMITS.bodyBytes) problems.push({ path: `${at}.body`, message: `is larger than ${PLAN_LIMITS.bodyBytes / 1024} KB` });
  const tags = item.tags === undefined ? [] : item.tags;
  if (!Array.isArray(tags) || tags.length > PLAN_LIMITS.tags || !tags.every((tag) => typeof tag === 'string' && tag.length <= PLAN_LIMITS.tagChars && TAG.test(tag))) {
    problems.push({ path: `${at}.tags`, message: `must be at most ${PLAN_LIMITS.tags} lowercase tags of letters, digits and hyphens` });
  }
  const citations = item.citations === undefined ? [] : item.citations;
  if (!Array.isArray(citations) || citations.length > PLAN_LIMITS.citationsPerPage || !citations.every((c) => typeof c === 'string' && c.length <= 300)) {
    problems.push({ path: `${at}.citations`, message: 'must be a list of code citations like "src/a.ts:Foo.bar"' });
  }
  return {
    action: action as PlannedPage['action'],
    slug: slugField(item, at, problems),
    title: lineField(item, 'title', at, PLAN_LIMITS.titleChars, problems),
    topic: topic as Topic,
    summary: lineField(item, 'summary', at, PLAN_LIMITS.summaryChars, problems),
    tags: tags as string[],
    body: typeof body === 'string' ? normaliseBody(body) : '',
    citations: citations as string[],
  };
}

/** The JSON object in a reply: the whole reply, or the first fenced block, or the outermost braces. */
export function extractJson(reply: string): string | undefined {
  const text = reply.trim();
  if (text.startsWith('{')) return text;
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n\s*```/.exec(text);
  if (fenced) return fenced[1];
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}

function normaliseBody(body: string): string {
  return `${body.replace(/\r\n?/g, '\n').trim()}\n`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownKeys(item: Record<string, unknown>, allowed: ReadonlySet<string>, at: string, problems: PlanProblem[]): void {
  for (const key of Object.keys(item)) if (!allowed.has(key)) problems.push({ path: `${at}.${key}`, message: 'is not part of the plan contract' });
}

function arrayField(data: Record<string, unknown>, key: string, at: string, max: number, problems: PlanProblem[]): unknown[] {
  const value = data[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.push({ path: `${at}.${key}`, message: 'must be a list' });
    return [];
  }
  if (value.length > max) problems.push({ path: `${at}.${key}`, message: `has ${value.length} items; at most ${max} are allowed in one plan` });
  return value.slice(0, max);
}

function slugField(item: Record<string, unknown>, at: string, problems: PlanProblem[], key = 'slug'): string {
  const value = item[key];
  if (typeof value !== 'string' || !isValidSlug(value)) {
    problems.push({ path: `${at}.${key}`, message: 'must be a slug: lowercase letters, digits and single hyphens, at most 80 characters, not a Windows device name (con, nul, com1, …)' });
    return '';
  }
  return value;
}

function lineField(item: Record<string, unknown>, key: string, at: string, max: number, problems: PlanProblem[], optional = false): string {
  const value = item[key];
  if (optional && value === undefined) return '';
  if (typeof value !== 'string' || !value.trim() || /[\r\n]/.test(value.trim()) || value.length > max) {
    problems.push({ path: `${at}.${key}`, message: `must be one line of at most ${max} characters` });
    return '';
  }
  return value.trim();
}
