import * as path from 'node:path';
import { findCitations, KEYED_FILE, SYMBOL_FILE, type Citation } from '../drift/citations';
import { lookUpKey } from '../drift/configKeys';
import { FIELD_ORDER } from '../pages/frontmatter';
import { maskCode } from '../pages/markdown';
import { STATUSES, TOPICS, type Position, type Range, type WikiLink, type WikiPage } from '../model';
import { parsePage } from '../pages/page';
import type { Clock } from '../ports';
import { bestFuzzyScore, fuzzyScore } from './fuzzy';
import { headingsOf, outlineOf, type OutlineSymbol } from './headings';
import { LinkIndex } from './linkIndex';
import type { DriftStatus, PageAgeSource, PageDocument, PagesSource, SymbolLister, WorkspaceFileLister } from './ports';

export type CompletionKind = 'page' | 'heading' | 'file' | 'symbol' | 'field' | 'value';

export interface CompletionEntry {
  label: string;
  kind: CompletionKind;
  detail?: string;
  documentation?: string;
  insertText: string;
  /** What the editor filters on: the typed text itself, since the service already matched fuzzily. */
  filterText: string;
  sortText: string;
  /** The text the entry replaces. */
  range: Range;
}

export interface CompletionResult {
  items: CompletionEntry[];
  /** More typing can change the list: ask again. */
  incomplete: boolean;
}

/** A place in the workspace: a page or a source file, workspace-relative. */
export interface Location {
  relPath: string;
  range: Range;
}

/** Hover content as plain data; front ends render text as text and code as a code block. */
export interface HoverInfo {
  range: Range;
  title: string;
  lines: string[];
  code?: { language: string; text: string; firstLine: number };
}

export interface DocumentLinkInfo {
  range: Range;
  kind: 'page' | 'citation';
  /** The page file, or the cited source file. */
  relPath: string;
  /** For a page link to a heading: the heading's line. */
  line?: number;
  citation?: Citation;
  tooltip: string;
}

export interface WorkspaceSymbolInfo {
  name: string;
  detail: string;
  relPath: string;
  range: Range;
}

export interface RenameTarget {
  /** The slug that would be renamed. */
  slug: string;
  /** What the editor selects for the new name. */
  range: Range;
}

export interface LanguageServiceDependencies {
  pages: PagesSource;
  files: WorkspaceFileLister;
  symbols: SymbolLister;
  drift: DriftStatus;
  clock: Clock;
  ages?: PageAgeSource;
}

const MAX_PAGE_ITEMS = 100;
const MAX_FILE_ITEMS = 100;
const MAX_HOVER_LINES = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

const LANGUAGE_OF: Record<string, string> = {
  ts: 'typescript', tsx: 'typescriptreact', mts: 'typescript', cts: 'typescript', js: 'javascript', jsx: 'javascriptreact', mjs: 'javascript', cjs: 'javascript',
  py: 'python', go: 'go', rs: 'rust', java: 'java', cs: 'csharp', rb: 'ruby', php: 'php', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', json: 'json', md: 'markdown', yaml: 'yaml', yml: 'yaml', css: 'css', html: 'html', sh: 'shellscript',
};

/**
 * Completion, definition, hover, links, references, symbols and rename targets for wiki pages,
 * over small ports and plain positions (0-based, like LSP): no editor in here.
 */
export class PageLanguageService {
  private lastParse?: { text: string; slug: string; page: WikiPage };

  constructor(private readonly deps: LanguageServiceDependencies) {}

  // ---- completion ----

  async completions(document: PageDocument, position: Position): Promise<CompletionResult> {
    const lines = document.text.split('\n');
    const line = (lines[position.line] ?? '').replace(/\r$/, '');
    const before = line.slice(0, position.character);
    const after = line.slice(position.character);
    const bodyStart = frontmatterEnd(lines);
    if (bodyStart !== undefined && position.line > 0 && position.line < bodyStart) return this.frontmatterCompletions(before, position);
    if (inFencedCode(lines, position.line, bodyStart ?? 0)) return { items: [], incomplete: false };

    const link = /\[\[([^\[\]|\n]*)$/.exec(before);
    if (link) return this.linkCompletions(link[1], position, after);
    const citation = openCodeSpan(before);
    if (citation !== undefined) return this.citationCompletions(citation, position, after);
    return { items: [], incomplete: false };
  }

  private async linkCompletions(typed: string, position: Position, after: string): Promise<CompletionResult> {
    const pages = await this.deps.pages.pages();
    const close = after.startsWith(']]') || after.startsWith('|') ? '' : ']]';
    const hash = typed.indexOf('#');
    if (hash >= 0) {
      const slug = typed.slice(0, hash).trim();
      const query = typed.slice(hash + 1);
      const page = LinkIndex.of(pages).page(slug);
      const range = rangeBack(position, query.length);
      const headings = page ? headingsOf(page.body, page.bodyStartLine) : [];
      const scored = headings.map((heading, i) => ({ heading, i, score: fuzzyScore(query, heading.text) })).filter((h) => h.score !== undefined);
      scored.sort((a, b) => b.score! - a.score! || a.i - b.i);
      return {
        incomplete: true,
        items: scored.map(({ heading }, i) => ({
          label: heading.text, kind: 'heading', detail: `${'#'.repeat(heading.level)} in ${slug}`, insertText: heading.text + close,
          filterText: query, sortText: sortKey(i), range,
        })),
      };
    }
    const range = rangeBack(position, typed.length);
    const query = typed.trim();
    const scored: { page: WikiPage; score: number }[] = [];
    for (const page of pages) {
      if (!page.readable) continue;
      const score = bestFuzzyScore(query, [page.slug, page.frontmatter.title ?? '']);
      if (score !== undefined) scored.push({ page, score });
    }
    scored.sort((a, b) => b.score - a.score || a.page.slug.localeCompare(b.page.slug));
    return {
      incomplete: true,
      items: scored.slice(0, MAX_PAGE_ITEMS).map(({ page }, i) => ({
        label: page.frontmatter.title ?? page.slug,
        kind: 'page',
        detail: page.frontmatter.status && page.frontmatter.status !== 'active' ? `${page.slug} (${page.frontmatter.status})` : page.slug,
        ...(page.frontmatter.summary ? { documentation: page.frontmatter.summary } : {}),
        insertText: page.slug + close,
        filterText: typed,
        sortText: sortKey(i),
        range,
      })),
    };
  }

  private async citationCompletions(typed: string, position: Position, after: string): Promise<CompletionResult> {
    const colon = typed.lastIndexOf(':');
    const close = after.startsWith('`') ? '' : '`';
    if (colon > 0 && SYMBOL_FILE.test(typed.slice(0, colon))) {
      const file = typed.slice(0, colon);
      const query = typed.slice(colon + 1);
      const text = await this.deps.files.read(file);
      if (text === undefined) return { items: [], incomplete: false };
      const symbols = await this.deps.symbols.symbolsOf(file, text);
      const scored = symbols.map((symbol) => ({ symbol, score: fuzzyScore(query, symbol.name) })).filter((s) => s.score !== undefined);
      scored.sort((a, b) => b.score! - a.score! || a.symbol.startLine - b.symbol.startLine);
      const range = rangeBack(position, query.length);
      return {
        incomplete: true,
        items: scored.map(({ symbol }, i) => ({
          label: symbol.name, kind: 'symbol', detail: `${symbol.kind} · line ${symbol.startLine + 1}`, insertText: symbol.name + close,
          filterText: query, sortText: sortKey(i), range,
        })),
      };
    }
    if (colon >= 0) return { items: [], incomplete: false };
    const files = await this.deps.files.list();
    const scored: { file: string; score: number }[] = [];
    for (const file of files) {
      const score = bestFuzzyScore(typed, [file, path.posix.basename(file)]);
      if (score !== undefined) scored.push({ file, score });
    }
    scored.sort((a, b) => b.score - a.score || a.file.localeCompare(b.file));
    return {
      incomplete: true,
      items: scored.slice(0, MAX_FILE_ITEMS).map(({ file }, i) => ({
        label: file, kind: 'file', detail: SYMBOL_FILE.test(file) ? 'type : to cite a symbol' : undefined, insertText: file,
        filterText: typed, sortText: sortKey(i), range: rangeBack(position, typed.length),
      })),
    };
  }

  private async frontmatterCompletions(before: string, position: Position): Promise<CompletionResult> {
    const key = /^([A-Za-z_]*)$/.exec(before);
    if (key) {
      return {
        incomplete: false,
        items: FIELD_ORDER.map((field, i) => ({
          label: field, kind: 'field', insertText: `${field}: `, filterText: field, sortText: sortKey(i), range: rangeBack(position, key[1].length),
        })),
      };
    }
    const value = /^(topic|status|superseded_by|tags):\s*(?:\[(?:[^\]]*,\s*)?)?["']?([\w-]*)$/.exec(before);
    if (!value) return { items: [], incomplete: false };
    const [, field, typed] = value;
    let values: { label: string; detail?: string }[];
    if (field === 'topic') values = TOPICS.map((topic) => ({ label: topic }));
    else if (field === 'status') values = STATUSES.map((status) => ({ label: status }));
    else {
      const pages = await this.deps.pages.pages();
      values = field === 'tags'
        ? [...new Set(pages.flatMap((page) => page.frontmatter.tags ?? []))].sort().map((tag) => ({ label: tag }))
        : pages.map((page) => ({ label: page.slug, detail: page.frontmatter.title }));
    }
    const range = rangeBack(position, typed.length);
    return {
      incomplete: false,
      items: values.map((v, i) => ({ label: v.label, kind: 'value', ...(v.detail ? { detail: v.detail } : {}), insertText: v.label, filterText: v.label, sortText: sortKey(i), range })),
    };
  }

  // ---- navigation ----

  async definition(document: PageDocument, position: Position): Promise<Location | undefined> {
    const page = this.parse(document);
    const link = linkAt(page, position);
    if (link) return this.linkTarget(link);
    const citation = citationAt(page, position);
    if (citation) return this.resolveCitation(citation);
    return undefined;
  }

  private async linkTarget(link: WikiLink): Promise<Location | undefined> {
    const target = LinkIndex.of(await this.deps.pages.pages()).page(link.target);
    if (!target) return undefined;
    const heading = link.heading && headingsOf(target.body, target.bodyStartLine).find((h) => sameHeading(h.text, link.heading!));
    return { relPath: target.relPath, range: heading ? heading.range : point(0, 0) };
  }

  /** Where the cited code is now: the symbol's declaration, the key's entry or the line range (from its first line), or the file's first line. */
  async resolveCitation(citation: Pick<Citation, 'path' | 'symbol' | 'outside' | 'lines' | 'folder'>): Promise<Location | undefined> {
    const code = await this.citedCode(citation);
    if (!code || code.folder) return undefined;
    return { relPath: citation.path, range: point(code.first, 0) };
  }

  /** The cited lines (0-based, `first`–`last`) of the file's text now; a folder has none. */
  private async citedCode(citation: Pick<Citation, 'path' | 'symbol' | 'outside' | 'lines' | 'folder'>): Promise<{ folder: true } | { folder?: undefined; text: string; first: number; last: number } | undefined> {
    if (citation.outside) return undefined;
    if (citation.folder) return (await this.deps.files.list()).some((file) => file.startsWith(`${citation.path}/`)) ? { folder: true } : undefined;
    const text = await this.deps.files.read(citation.path);
    if (text === undefined) return undefined;
    const count = text.split('\n').length;
    if (citation.lines) return citation.lines.start >= 1 && citation.lines.start <= count ? { text, first: citation.lines.start - 1, last: Math.min(citation.lines.end, count) - 1 } : undefined;
    if (!citation.symbol) return { text, first: 0, last: count - 1 };
    if (KEYED_FILE.test(citation.path)) {
      const key = lookUpKey(citation.path, text, citation.symbol);
      if ('fingerprint' in key) return { text, first: key.startLine, last: key.endLine };
      return 'unsupported' in key ? { text, first: 0, last: count - 1 } : undefined;
    }
    const symbol = (await this.deps.symbols.symbolsOf(citation.path, text)).find((s) => s.name === citation.symbol);
    return symbol ? { text, first: symbol.startLine, last: symbol.endLine } : undefined;
  }

  async hover(document: PageDocument, position: Position): Promise<HoverInfo | undefined> {
    const page = this.parse(document);
    const link = linkAt(page, position);
    if (link) return this.pageHover(link);
    const citation = citationAt(page, position);
    if (citation) return this.citationHover(document, page, citation);
    return undefined;
  }

  private async pageHover(link: WikiLink): Promise<HoverInfo> {
    const target = LinkIndex.of(await this.deps.pages.pages()).page(link.target);
    if (!target) return { range: link.range, title: `[[${link.target}]]`, lines: [`No page "${link.target}" exists. Lint reports this link as broken.`] };
    const fm = target.frontmatter;
    const facts = [`status: ${fm.status ?? 'unknown'}`, fm.topic && `topic: ${fm.topic}`, fm.updated && `updated ${fm.updated} (${this.daysAgo(fm.updated)})`].filter(Boolean);
    const age = await this.deps.ages?.ageOf(target.slug);
    if (age) facts.push(`age: ${age}`);
    const lines = [fm.summary ?? '', facts.join(' · ')];
    if (fm.status === 'stale' && fm.stale_reason) lines.push(`Stale: ${fm.stale_reason}`);
    if (fm.superseded_by) lines.push(`Superseded by [[${fm.superseded_by}]]`);
    if (link.heading && !headingsOf(target.body, target.bodyStartLine).some((h) => sameHeading(h.text, link.heading!))) lines.push(`The page has no heading "${link.heading}".`);
    return { range: link.range, title: fm.title ?? target.slug, lines: lines.filter(Boolean) };
  }

  private async citationHover(document: PageDocument, page: WikiPage, citation: Citation): Promise<HoverInfo> {
    const base = { range: citation.range, title: citation.text };
    if (citation.outside) return { ...base, lines: ['Outside the workspace: Repo Wiki does not read it.'] };
    const code = await this.citedCode(citation);
    const issue = await this.deps.drift.issueAt(document.relPath, citation.range);
    const anchored = page.frontmatter.anchors?.[citation.text] !== undefined;
    const drift = issue ? `Drift (${issue.code}): ${issue.message}` : anchored ? 'Matches the code this page was verified against.' : 'Not checked yet.';
    if (!code) return { ...base, lines: [drift, missing(citation)] };
    if (code.folder) return { ...base, lines: [drift, `The folder ${citation.path}/ exists.`] };
    const all = code.text.split('\n');
    const { first, last } = code;
    const shownLast = Math.min(last, first + MAX_HOVER_LINES - 1);
    const shown = all.slice(first, shownLast + 1).map((line) => line.replace(/\r$/, ''));
    const where = `${citation.path}, lines ${first + 1}–${last + 1}${shownLast < last ? ` (first ${MAX_HOVER_LINES} shown)` : ''}`;
    const extension = path.posix.extname(citation.path).slice(1).toLowerCase();
    return { ...base, lines: [drift, where], code: { language: LANGUAGE_OF[extension] ?? '', text: shown.join('\n'), firstLine: first } };
  }

  async documentLinks(document: PageDocument): Promise<DocumentLinkInfo[]> {
    const page = this.parse(document);
    const index = LinkIndex.of(await this.deps.pages.pages());
    const links: DocumentLinkInfo[] = [];
    for (const link of page.links) {
      const target = index.page(link.target);
      if (!target) continue;
      const heading = link.heading ? headingsOf(target.body, target.bodyStartLine).find((h) => sameHeading(h.text, link.heading!)) : undefined;
      links.push({ range: link.range, kind: 'page', relPath: target.relPath, ...(heading ? { line: heading.range.start.line } : {}), tooltip: `Open ${target.frontmatter.title ?? target.slug}` });
    }
    for (const citation of findCitations(page)) {
      if (citation.outside) continue;
      links.push({ range: citation.range, kind: 'citation', relPath: citation.path, citation, tooltip: `Open ${citation.text}` });
    }
    return links;
  }

  /** Pages linking to the page at `position` (a link, the title line), or pages citing the same code. */
  async references(document: PageDocument, position: Position, includeDeclaration = false): Promise<Location[]> {
    const page = this.parse(document);
    const index = LinkIndex.of(await this.deps.pages.pages());
    const citation = citationAt(page, position);
    if (citation) {
      if (citation.outside) return [];
      const found = index.citationsOf(citation).filter((ref) => ref.relPath !== document.relPath).map((ref) => ({ relPath: ref.relPath, range: ref.citation.range }));
      // The open document may have unsaved citations: take its own from the text.
      const own = findCitations(page).filter((c) => c.path === citation.path && c.symbol === citation.symbol).map((c) => ({ relPath: document.relPath, range: c.range }));
      return [...own, ...found];
    }
    const slug = this.slugAt(page, position);
    if (!slug) return [];
    const locations = index.backlinks(slug).map((ref) => ({ relPath: ref.relPath, range: ref.range }));
    const target = index.page(slug);
    if (includeDeclaration && target) locations.unshift({ relPath: target.relPath, range: point(target.fieldLines.title ?? 0, 0) });
    return locations;
  }

  /** The page a position names: a link's target, or this page on its title line or first heading. */
  private slugAt(page: WikiPage, position: Position): string | undefined {
    const link = linkAt(page, position);
    if (link) return link.target;
    if (page.fieldLines.title === position.line) return page.slug;
    const superseded = page.fieldLines.superseded_by;
    if (superseded === position.line && page.frontmatter.superseded_by) return page.frontmatter.superseded_by;
    const first = headingsOf(page.body, page.bodyStartLine)[0];
    if (first && first.level === 1 && first.range.start.line === position.line) return page.slug;
    return undefined;
  }

  documentSymbols(document: PageDocument): OutlineSymbol[] {
    const page = this.parse(document);
    return outlineOf(headingsOf(page.body, page.bodyStartLine));
  }

  /** Pages whose title (or slug) matches `query`, best first. */
  async workspaceSymbols(query: string, limit = 200): Promise<WorkspaceSymbolInfo[]> {
    const scored: { page: WikiPage; score: number }[] = [];
    for (const page of await this.deps.pages.pages()) {
      if (!page.readable) continue;
      const score = bestFuzzyScore(query, [page.frontmatter.title ?? page.slug, page.slug]);
      if (score !== undefined) scored.push({ page, score });
    }
    scored.sort((a, b) => b.score - a.score || a.page.slug.localeCompare(b.page.slug));
    return scored.slice(0, limit).map(({ page }) => ({
      name: page.frontmatter.title ?? page.slug, detail: page.slug, relPath: page.relPath, range: point(page.fieldLines.title ?? 0, 0),
    }));
  }

  /** What F2 at `position` renames: a link's page (its slug selected), or this page from its title line. */
  renameTarget(document: PageDocument, position: Position): RenameTarget | undefined {
    const page = this.parse(document);
    const link = linkAt(page, position);
    if (link) {
      const lines = document.text.split('\n');
      const line = lines[link.range.start.line] ?? '';
      const start = line.indexOf(link.target, link.range.start.character + 2);
      if (start < 0) return undefined;
      return { slug: link.target, range: { start: { line: link.range.start.line, character: start }, end: { line: link.range.start.line, character: start + link.target.length } } };
    }
    const slug = this.slugAt(page, position);
    if (!slug) return undefined;
    const line = document.text.split('\n')[position.line] ?? '';
    return { slug, range: { start: { line: position.line, character: 0 }, end: { line: position.line, character: line.replace(/\r$/, '').length } } };
  }

  // ---- helpers ----

  private parse(document: PageDocument): WikiPage {
    if (this.lastParse?.text === document.text && this.lastParse.slug === document.slug) return this.lastParse.page;
    const page = parsePage(document.relPath, document.slug, new TextEncoder().encode(document.text));
    this.lastParse = { text: document.text, slug: document.slug, page };
    return page;
  }

  private daysAgo(date: string): string {
    const days = Math.floor((this.deps.clock.now().getTime() - Date.parse(`${date}T00:00:00Z`)) / DAY_MS);
    if (!Number.isFinite(days)) return 'date unknown';
    if (days <= 0) return 'today';
    return days === 1 ? '1 day ago' : `${days} days ago`;
  }
}

/** Whether `line` is inside a fenced code block of the body (which starts at `bodyStart`). */
function inFencedCode(lines: readonly string[], line: number, bodyStart: number): boolean {
  if (line < bodyStart) return false;
  const masked = maskCode(lines.slice(bodyStart, line + 1).join('\n'), { inlineCode: false }).split('\n');
  return masked[masked.length - 1] !== (lines[line] ?? '');
}

/** 0-based line after the closing `---` of the frontmatter, or undefined when the page has none. */
function frontmatterEnd(lines: readonly string[]): number | undefined {
  if (lines[0]?.replace(/\r$/, '') !== '---') return undefined;
  for (let i = 1; i < lines.length; i++) if (lines[i].replace(/\r$/, '') === '---') return i + 1;
  return lines.length;
}

/** The text after an unclosed backtick before the cursor (one backtick run opens a span), or undefined. */
function openCodeSpan(before: string): string | undefined {
  let open: number | undefined;
  for (let i = 0; i < before.length; i++) if (before[i] === '`') open = open === undefined ? i : undefined;
  if (open === undefined) return undefined;
  const typed = before.slice(open + 1);
  return /^[^\s`]*$/.test(typed) ? typed : undefined;
}

function contains(range: Range, position: Position): boolean {
  const afterStart = position.line > range.start.line || (position.line === range.start.line && position.character >= range.start.character);
  const beforeEnd = position.line < range.end.line || (position.line === range.end.line && position.character <= range.end.character);
  return afterStart && beforeEnd;
}

function linkAt(page: WikiPage, position: Position): WikiLink | undefined {
  return page.links.find((link) => contains(link.range, position));
}

/** What a hover says of a citation that resolves to nothing. */
function missing(citation: Citation): string {
  if (citation.folder) return `The folder ${citation.path}/ does not exist, or holds no file.`;
  if (citation.lines) return `${citation.path} does not exist, or has no line ${citation.lines.start}.`;
  if (citation.symbol) return KEYED_FILE.test(citation.path) ? `${citation.symbol} is not a key of ${citation.path}.` : `${citation.symbol} is not declared in ${citation.path}.`;
  return `${citation.path} does not exist or cannot be read.`;
}

function citationAt(page: WikiPage, position: Position): Citation | undefined {
  return findCitations(page).find((citation) => contains(citation.range, position));
}

function sameHeading(a: string, b: string): boolean {
  const norm = (s: string) => s.trim().toLowerCase().replace(/[\s-]+/g, ' ');
  return norm(a) === norm(b);
}

function rangeBack(position: Position, length: number): Range {
  return { start: { line: position.line, character: position.character - length }, end: position };
}

function point(line: number, character: number): Range {
  return { start: { line, character }, end: { line, character } };
}

function sortKey(i: number): string {
  return String(i).padStart(5, '0');
}
