import { queryTerms } from '../chat/retrieval';
import { findCitations, parseCitationText } from '../drift/citations';
import { parseLinks } from '../pages/markdown';
import type { PageFrontmatter, WikiPage } from '../model';
import { unlink } from '../lint/lintFix';
import { parsePage, serializePage } from '../pages/page';
import type { Wiki } from '../wiki/wiki';
import type { Plan, PlannedPage, PlanProblem } from './plan';
import { sourceRef } from './memory';

/** Resolves a code citation to the fingerprint it would be stamped with now; the drift engine is one. */
export interface CitationResolver {
  /** '' for a citation that resolves with nothing to record (a folder). */
  currentAnchor(citation: { path: string; symbol?: string; outside: boolean }): Promise<string | undefined>;
}

/** One page file the plan would write, with its text before and after, for the preview. */
export interface PageChange {
  slug: string;
  kind: 'create' | 'update' | 'corroborate' | 'link';
  title: string;
  /** One line for the review list: why this page changes. */
  detail: string;
  /** The file as it is now (absent for a new page); applying refuses if the file no longer matches. */
  before?: string;
  after: string;
  frontmatter: PageFrontmatter;
  body: string;
  extraFields: Record<string, unknown>;
}

export interface PreparedPlan {
  changes: PageChange[];
  /** Plan entries dropped as harmless: a re-ingest of a source a page already records, for example. */
  notes: string[];
  /** Every problem; when there is one, nothing may be written. */
  problems: PlanProblem[];
}

export interface PrepareOptions {
  /** Provenance of what was ingested, e.g. `file:docs/design.md`; recorded in each page's `sources`. */
  sources: readonly string[];
  today: string;
  /** The existing pages most like a text (a search index); without it every page is compared. */
  similar?(text: string): readonly WikiPage[];
}

/** Jaccard similarity of word sets at which a "new" page counts as one the wiki already has. */
export const DUPLICATE_SIMILARITY = 0.6;

/**
 * Turns a parsed plan into page changes against the current pages, or into problems. A page the
 * wiki already holds becomes a corroboration instead of a duplicate; every citation must resolve.
 */
export async function preparePlan(plan: Plan, wiki: Wiki, pages: readonly WikiPage[], resolver: CitationResolver, options: PrepareOptions): Promise<PreparedPlan> {
  const readText = (slug: string) => wiki.readPageText(slug);
  const existing = new Map(pages.filter((page) => page.readable).map((page) => [page.slug, page]));
  const problems: PlanProblem[] = [];
  const notes: string[] = [];
  const corroborate = new Map(plan.corroborate.map((c) => [c.slug, c.reason]));
  const planned: PlannedPage[] = [];
  const seen = new Set<string>();
  /** Pages the plan would have created that the wiki already has: new slug -> existing slug. */
  const merged = new Map<string, string>();
  for (const [i, page] of plan.pages.entries()) {
    const at = `pages[${i}]`;
    if (seen.has(page.slug)) {
      problems.push({ path: `${at}.slug`, message: `"${page.slug}" appears twice in the plan` });
      continue;
    }
    seen.add(page.slug);
    const duplicateOf = page.action === 'create' ? findDuplicate(page, existing, options.similar) : undefined;
    if (duplicateOf) {
      merged.set(page.slug, duplicateOf.slug);
      corroborate.set(duplicateOf.slug, corroborate.get(duplicateOf.slug) || `re-discovered as "${page.title}"`);
      notes.push(`"${page.title}" is already in the wiki as [[${duplicateOf.slug}]]; it is corroborated instead of duplicated.`);
      continue;
    }
    if (page.action === 'update' && !existing.has(page.slug)) {
      problems.push({ path: `${at}.slug`, message: `"${page.slug}" is not a page of this wiki, so it cannot be updated` });
      continue;
    }
    planned.push(page);
  }
  // Links to a page that turned out to exist already point at that page instead.
  const links = plan.links.map((link) => ({ from: merged.get(link.from) ?? link.from, to: merged.get(link.to) ?? link.to }));
  for (const [i, page] of planned.entries()) planned[i] = { ...page, body: relink(page.body, merged) };
  const finalSlugs = new Set([...existing.keys(), ...planned.map((page) => page.slug)]);
  checkTitles(planned, existing, problems);
  const anchorsByPage = await resolveCitations(plan, planned, resolver, problems);
  for (const [slug] of corroborate) {
    const page = existing.get(slug);
    if (!page) problems.push({ path: 'corroborate', message: `"${slug}" is not a page of this wiki, so it cannot be corroborated` });
    else if ((page.frontmatter.status ?? 'active') !== 'active') {
      // A stale or superseded page is not made more credible by a source; it needs an update.
      corroborate.delete(slug);
      notes.push(`[[${slug}]] is ${page.frontmatter.status}, so it is not corroborated; update it if the source shows what is true now.`);
    }
  }
  for (const link of links) {
    for (const end of [link.from, link.to]) {
      if (!finalSlugs.has(end)) problems.push({ path: 'links', message: `[[${end}]] is neither a page of this wiki nor created by this plan` });
    }
  }
  for (const page of planned) {
    for (const link of parseLinks(page.body, 0)) {
      if (!finalSlugs.has(link.target)) problems.push({ path: `pages[${plan.pages.findIndex((p) => p.slug === page.slug)}].body`, message: `links to [[${link.target}]], which is neither a page of this wiki nor created by this plan` });
    }
  }
  if (problems.length) return { changes: [], notes, problems };

  const drafts = new Map<string, Draft>();
  for (const page of planned) drafts.set(page.slug, draftFromPlan(page, existing.get(page.slug), anchorsByPage.get(page) ?? {}, options));
  for (const [slug, reason] of corroborate) {
    if (drafts.has(slug)) continue; // rewritten in this plan already
    const page = existing.get(slug)!;
    const fm = page.frontmatter as PageFrontmatter;
    const newSources = options.sources.filter((source) => !(fm.sources ?? []).some((entry) => sourceRef(entry) === sourceRef(source)));
    if (!newSources.length) {
      notes.push(`[[${slug}]] already records ${options.sources.map(sourceRef).join(', ')}; nothing to corroborate.`);
      continue;
    }
    drafts.set(slug, {
      kind: 'corroborate',
      detail: `corroborated (${(fm.corroborations ?? 0) + 1}): ${reason}`,
      page,
      frontmatter: { ...fm, corroborations: (fm.corroborations ?? 0) + 1, sources: [...(fm.sources ?? []), ...newSources], updated: options.today },
      body: page.body,
    });
  }
  for (const link of links) {
    if (link.from === link.to) continue;
    const draft = drafts.get(link.from) ?? existingDraft(existing.get(link.from)!, options.today);
    const body = withRelatedLink(draft.body, link.to);
    if (body === draft.body) continue;
    const detail = draft.kind !== 'link' ? draft.detail : draft.detail ? `${draft.detail}, [[${link.to}]]` : `adds a link to [[${link.to}]]`;
    drafts.set(link.from, { ...draft, body, detail });
  }
  // New and rewritten pages first: they are what a reviewer reads most closely.
  const sorted = [...drafts.entries()].sort(([a, x], [b, y]) => KIND_ORDER.indexOf(x.kind) - KIND_ORDER.indexOf(y.kind) || a.localeCompare(b));
  const changes = await Promise.all(sorted.map(async ([slug, draft]) => toChange(slug, draft, draft.page && (await readText(slug)))));
  return { changes, notes, problems };
}

const KIND_ORDER: readonly PageChange['kind'][] = ['create', 'update', 'corroborate', 'link'];

interface Draft {
  kind: PageChange['kind'];
  detail: string;
  page?: WikiPage;
  frontmatter: PageFrontmatter;
  body: string;
}

function draftFromPlan(planned: PlannedPage, page: WikiPage | undefined, anchors: Record<string, string>, options: PrepareOptions): Draft {
  const previous = page?.frontmatter as PageFrontmatter | undefined;
  const sources = [...(previous?.sources ?? [])];
  for (const source of options.sources) {
    // A source seen before keeps its place, at its new version.
    const at = sources.findIndex((entry) => sourceRef(entry) === sourceRef(source));
    if (at >= 0) sources[at] = source;
    else sources.push(source);
  }
  return {
    kind: page ? 'update' : 'create',
    detail: page ? `rewritten: ${planned.summary}` : `new ${planned.topic} page: ${planned.summary}`,
    page,
    frontmatter: {
      title: planned.title,
      topic: planned.topic,
      summary: planned.summary,
      status: previous?.status ?? 'active',
      tags: planned.tags.length ? planned.tags : previous?.tags ?? [],
      created: previous?.created ?? options.today,
      updated: options.today,
      corroborations: previous?.corroborations ?? 0,
      sources,
      anchors,
      ...(previous?.superseded_by ? { superseded_by: previous.superseded_by } : {}),
      ...(previous?.stale_reason ? { stale_reason: previous.stale_reason } : {}),
    },
    body: planned.body,
  };
}

function existingDraft(page: WikiPage, today: string): Draft {
  return { kind: 'link', detail: '', page, frontmatter: { ...(page.frontmatter as PageFrontmatter), updated: today }, body: page.body };
}

function toChange(slug: string, draft: Draft, before: string | undefined): PageChange {
  const extraFields = draft.page?.extraFields ?? {};
  return {
    slug,
    kind: draft.kind,
    title: draft.frontmatter.title,
    detail: draft.detail,
    ...(before !== undefined ? { before } : {}),
    after: serializePage(draft.frontmatter, draft.body, extraFields),
    frontmatter: draft.frontmatter,
    body: draft.body,
    extraFields,
  };
}

/** `[[old]]` and `[[old|label]]` rewritten to the slugs in `renames`. */
function relink(body: string, renames: ReadonlyMap<string, string>): string {
  if (!renames.size) return body;
  return body.replace(/\[\[([^\[\]|\n]+)(\|[^\[\]\n]*)?\]\]/g, (whole, target: string, label = '') => {
    const to = renames.get(target.trim());
    return to ? `[[${to}${label}]]` : whole;
  });
}

/**
 * The changes the user kept. Links to pages the plan would have created but the user rejected
 * become plain text (a Related entry for one goes), so a partial accept never writes a dangling
 * link; a change left with nothing to do is dropped.
 */
export function keepChanges(changes: readonly PageChange[], kept: ReadonlySet<string>): PageChange[] {
  const rejected = new Set(changes.filter((change) => change.kind === 'create' && !kept.has(change.slug)).map((change) => change.slug));
  const out: PageChange[] = [];
  for (const change of changes) {
    if (!kept.has(change.slug)) continue;
    if (!rejected.size) {
      out.push(change);
      continue;
    }
    const body = unlink(withoutRelatedLinks(change.body, rejected), rejected);
    if (body === change.body) {
      out.push(change);
      continue;
    }
    // A change made only to add links has nothing left to do once its body is back to what it was.
    if (change.kind === 'link' && change.before !== undefined && body === parsePage(`${change.slug}.md`, change.slug, new TextEncoder().encode(change.before)).body) continue;
    out.push({ ...change, body, after: serializePage(change.frontmatter, body, change.extraFields) });
  }
  return out;
}

/** Removes `- [[slug]]` entries of a "## Related" section for these slugs, and the section when it empties. */
function withoutRelatedLinks(body: string, slugs: ReadonlySet<string>): string {
  const lines = body.split('\n');
  const related = relatedSection(lines);
  if (!related) return body;
  const { heading, end } = related;
  const section = lines.slice(heading + 1, end).filter((line) => {
    const only = /^\s*[-*]\s+\[\[([^\[\]|\n]+)(\|[^\[\]\n]*)?\]\]\s*$/.exec(line);
    return !(only && slugs.has(only[1].trim()));
  });
  if (section.some((line) => line.trim())) return [...lines.slice(0, heading + 1), ...section, ...lines.slice(end)].join('\n');
  const before = lines.slice(0, heading);
  while (before.length && !before[before.length - 1].trim()) before.pop();
  const rest = lines.slice(end);
  return `${[...before, ...(rest.length ? ['', ...rest] : [])].join('\n')}\n`;
}

/** Adds `- [[to]]` under a "## Related" heading (created at the end when missing), once. */
export function withRelatedLink(body: string, to: string): string {
  if (parseLinks(body, 0).some((link) => link.target === to)) return body;
  const lines = body.replace(/\n+$/, '').split('\n');
  const related = relatedSection(lines);
  if (!related) return `${lines.join('\n')}\n\n## Related\n\n- [[${to}]]\n`;
  const { heading } = related;
  let { end } = related;
  while (end > heading + 1 && !lines[end - 1].trim()) end--;
  lines.splice(end, 0, ...(end === heading + 1 ? ['', `- [[${to}]]`] : [`- [[${to}]]`]));
  return `${lines.join('\n')}\n`;
}

/** The "## Related" heading's line and the line after its section (the next level 1–2 heading, or the end). */
function relatedSection(lines: readonly string[]): { heading: number; end: number } | undefined {
  const heading = lines.findIndex((line) => /^##\s+Related\s*$/i.test(line));
  if (heading < 0) return undefined;
  let end = heading + 1;
  while (end < lines.length && !/^#{1,2}\s/.test(lines[end])) end++;
  return { heading, end };
}

/** An active page with the same title, or whose words overlap enough to be the same knowledge. */
function findDuplicate(page: PlannedPage, existing: ReadonlyMap<string, WikiPage>, similar?: PrepareOptions['similar']): WikiPage | undefined {
  const active = (candidate: WikiPage | undefined) => candidate && (candidate.frontmatter.status ?? 'active') === 'active';
  const same = existing.get(page.slug);
  if (active(same)) return same;
  const title = page.title.toLowerCase();
  for (const candidate of existing.values()) if (active(candidate) && candidate.frontmatter.title?.toLowerCase() === title) return candidate;
  const text = `${page.title} ${page.summary} ${page.body}`;
  const words = new Set(queryTerms(text));
  let best: { page: WikiPage; score: number } | undefined;
  for (const candidate of similar ? similar(text) : existing.values()) {
    if (!active(candidate)) continue;
    const score = jaccard(words, new Set(queryTerms(`${candidate.frontmatter.title ?? ''} ${candidate.frontmatter.summary ?? ''} ${candidate.body}`)));
    if (score >= DUPLICATE_SIMILARITY && (!best || score > best.score)) best = { page: candidate, score };
  }
  return best?.page;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size && !b.size) return 0;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}

function checkTitles(planned: readonly PlannedPage[], existing: ReadonlyMap<string, WikiPage>, problems: PlanProblem[]): void {
  const owners = new Map<string, string>();
  for (const page of existing.values()) if (page.frontmatter.title) owners.set(page.frontmatter.title.toLowerCase(), page.slug);
  for (const page of planned) {
    const owner = owners.get(page.title.toLowerCase());
    if (owner && owner !== page.slug) problems.push({ path: `pages[${page.slug}].title`, message: `"${page.title}" is already the title of [[${owner}]]` });
    owners.set(page.title.toLowerCase(), page.slug);
  }
}

/** Every citation a page lists or writes must resolve now; returns the anchors to stamp. */
async function resolveCitations(plan: Plan, planned: readonly PlannedPage[], resolver: CitationResolver, problems: PlanProblem[]): Promise<Map<PlannedPage, Record<string, string>>> {
  const result = new Map<PlannedPage, Record<string, string>>();
  const cache = new Map<string, Promise<string | undefined>>();
  const resolve = (text: string, citation: { path: string; symbol?: string; outside: boolean }) => {
    let anchor = cache.get(text);
    if (!anchor) cache.set(text, (anchor = resolver.currentAnchor(citation)));
    return anchor;
  };
  await Promise.all(planned.map(async (page) => {
    const at = `pages[${plan.pages.findIndex((p) => p.slug === page.slug)}]`;
    const inBody = findCitations({ body: page.body, bodyStartLine: 0 });
    const listed = page.citations.map((text) => ({ text, parsed: parseCitationText(text) }));
    for (const { text, parsed } of listed) {
      if (!parsed) problems.push({ path: `${at}.citations`, message: `"${text}" is not a code citation (write path/to/file.ts or path/to/file.ts:Symbol)` });
    }
    const anchors: Record<string, string> = {};
    const all = new Map<string, { path: string; symbol?: string; outside: boolean }>();
    for (const citation of [...inBody, ...listed.flatMap(({ parsed }) => (parsed ? [parsed] : []))]) all.set(citation.text, citation);
    for (const [text, citation] of all) {
      if (citation.outside) {
        problems.push({ path: `${at}.citations`, message: `${text} is outside the workspace` });
        continue;
      }
      const anchor = await resolve(text, citation);
      if (anchor) anchors[text] = anchor;
      else if (anchor === undefined) problems.push({ path: `${at}.citations`, message: `${text} does not resolve: ${citation.symbol ? `${citation.symbol} is not declared in ${citation.path}` : `${citation.path} does not exist`} (an invented citation)` });
    }
    result.set(page, anchors);
  }));
  return result;
}
