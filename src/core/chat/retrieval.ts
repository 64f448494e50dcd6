import MiniSearch, { type SearchResult } from 'minisearch';
import { isArchived, type PageStatus, type WikiPage } from '../model';
import { isStrongMatch, termWeights } from './confidence';
import { isStarterPage } from './starterPages';
import { stem } from './stem';
import { expansions } from './synonyms';

/** A page found for a question, with the passage that matched best. */
export interface RetrievedPage {
  slug: string;
  title: string;
  summary: string;
  status: PageStatus;
  score: number;
  /** The best-matching paragraph of the body, plain markdown, capped. */
  passage: string;
  /**
   * Whether the page matched enough of the question to answer it (see confidence.ts). Set by
   * search; absent on pages that are not search results (attached by hand), which count as confident.
   */
  confident?: boolean;
}

/** Whether any result is strong enough to answer from; otherwise the wiki has no answer. */
export function isConfident(results: readonly RetrievedPage[]): boolean {
  return results.some((page) => page.confident !== false);
}

// Stale and superseded pages still answer, but rank below active ones.
const STATUS_WEIGHT: Record<Exclude<PageStatus, 'archived'>, number> = { active: 1, stale: 0.5, superseded: 0.3 };
const FIELD_BOOST = { title: 3, tags: 2, summary: 2, body: 1 };
// A related word helps find a page, but less than the word the user actually typed.
const SYNONYM_WEIGHT = 0.4;
const PASSAGE_MAX_CHARS = 600;

const STOP_WORDS = new Set(
  ('a an and are as at be but by can could do does did for from had has have how i if in into is it its me my of on or our ' +
    'should so than that the their them then there these they this those to us was we were what when where which who why ' +
    'will with would you your about explain tell show please').split(' '),
);

/** Words of a text, lower-cased, with camelCase and dotted identifiers also split into their parts. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.split(/[^\p{L}\p{N}_$]+/u)) {
    if (!word) continue;
    tokens.push(word.toLowerCase());
    const parts = word.split(/(?<=[a-z0-9])(?=[A-Z])|_/).filter(Boolean);
    if (parts.length > 1) for (const part of parts) tokens.push(part.toLowerCase());
  }
  return tokens;
}

function isSearchWord(word: string): boolean {
  return word.length >= 2 && !STOP_WORDS.has(word);
}

/** What the index stores for a word: its stem, so "retries", "retrying" and "retry" meet. */
function processTerm(term: string): string | null {
  return isSearchWord(term) ? stem(term) : null;
}

/** Search words of a question (lower-cased, stop words dropped, not stemmed: callers compare them with `tokenize` output). */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query).filter(isSearchWord))];
}

const FOLLOW_UP_START = /^(and|but|also|so|then|what about|how about|why|why not|and why|is that|does that|can it|it|its|that|this|they|those|these|same)\b/i;

/**
 * The text to retrieve with: the latest question, plus the previous one when the latest reads like
 * a short follow-up ("and why?", "what about deletes?") that means nothing alone.
 */
export function retrievalQuery(question: string, previousQuestion?: string): string {
  if (!previousQuestion) return question;
  const words = queryTerms(question).length;
  return words <= 3 || FOLLOW_UP_START.test(question.trim()) ? `${previousQuestion}\n${question}` : question;
}

interface IndexedPage {
  id: string;
  title: string;
  summary: string;
  tags: string;
  body: string;
  status: PageStatus;
}

/** BM25 (MiniSearch) over the wiki's readable pages, with field boosts and stale pages down-weighted. */
export class WikiRetriever {
  private readonly index: MiniSearch<IndexedPage>;
  private readonly pages = new Map<string, WikiPage>();
  private readonly starters = new Set<string>();

  constructor(pages: readonly WikiPage[]) {
    this.index = new MiniSearch<IndexedPage>({
      fields: ['title', 'summary', 'tags', 'body'],
      storeFields: ['status'],
      tokenize,
      processTerm,
      searchOptions: { boost: FIELD_BOOST, prefix: (term) => term.length >= 4, fuzzy: (term) => (term.length >= 6 ? 0.15 : false) },
    });
    this.index.addAll(pages.filter(retrievable).map((page) => this.track(page)));
  }

  /** Brings the index up to date with `pages`, re-indexing only the pages whose content changed. */
  sync(pages: readonly WikiPage[]): void {
    const current = new Set<string>();
    for (const page of pages) {
      if (!retrievable(page)) continue;
      current.add(page.slug);
      const indexed = this.pages.get(page.slug);
      if (indexed === page) continue;
      if (!indexed) this.index.add(this.track(page));
      else if (sameContent(indexed, page)) this.pages.set(page.slug, page);
      else this.index.replace(this.track(page));
    }
    for (const slug of [...this.pages.keys()]) {
      if (current.has(slug)) continue;
      this.index.discard(slug);
      this.pages.delete(slug);
      this.starters.delete(slug);
    }
  }

  private track(page: WikiPage): IndexedPage {
    this.pages.set(page.slug, page);
    if (isStarterPage(page)) this.starters.add(page.slug);
    else this.starters.delete(page.slug);
    const fm = page.frontmatter;
    return { id: page.slug, title: fm.title ?? page.slug, summary: fm.summary ?? '', tags: (fm.tags ?? []).join(' '), body: page.body, status: fm.status ?? 'active' };
  }

  get size(): number {
    return this.pages.size;
  }

  /**
   * The best pages for a query; `passages: false` skips picking each one's best paragraph, and
   * `exact` matches whole words only: for long queries drawn from a document, where prefix and
   * typo matching of dozens of terms cost far more than they find.
   */
  search(query: string, limit = 5, options: { passages?: boolean; exact?: boolean } = {}): RetrievedPage[] {
    const terms = queryTerms(query);
    if (!terms.length) return [];
    const stems = [...new Set(terms.map(stem))];
    // Exact searches come from documents, not people: they have their own words already.
    const related = options.exact ? new Map<string, string>() : expansions(stems);
    const relatedStems = new Map([...related].map(([word, source]) => [stem(word), source]));
    const results = this.index.search([...terms, ...related.keys()].join(' '), {
      ...(options.exact ? { prefix: false, fuzzy: false } : {}),
      boostTerm: (stem) => (relatedStems.has(stem) ? SYNONYM_WEIGHT : 1),
      boostDocument: (_id, _term, stored) => STATUS_WEIGHT[(stored?.status as keyof typeof STATUS_WEIGHT) ?? 'active'] ?? 1,
    });
    // A related word counts as the query word it stands for when judging confidence.
    const conceptsOf = (result: SearchResult) => result.queryTerms.map((stem) => relatedStems.get(stem) ?? stem);
    const weights = this.termWeights(stems, results.map(conceptsOf));
    return this.demoteStarters(results).slice(0, limit).map((result) => {
      const page = this.pages.get(String(result.id))!;
      return {
        slug: page.slug,
        title: page.frontmatter.title ?? page.slug,
        summary: page.frontmatter.summary ?? '',
        status: page.frontmatter.status ?? 'active',
        score: Math.round(result.score * 1000) / 1000,
        passage: options.passages === false ? '' : bestPassage(page.body, terms),
        confident: isStrongMatch(conceptsOf(result), weights),
      };
    });
  }

  /** Each query stem's rarity, counted over the pages that matched it (`matched`: each result's matched stems). */
  private termWeights(stems: readonly string[], matched: readonly string[][]): Map<string, number> {
    const matches = new Map<string, number>();
    for (const terms of matched) for (const term of new Set(terms)) matches.set(term, (matches.get(term) ?? 0) + 1);
    return termWeights(stems, matches, this.pages.size);
  }

  /** Starter pages go after every real page, once the wiki has one. */
  private demoteStarters(results: SearchResult[]): SearchResult[] {
    if (this.starters.size === this.pages.size) return results;
    const isStarter = (result: SearchResult) => this.starters.has(String(result.id));
    return [...results.filter((result) => !isStarter(result)), ...results.filter(isStarter)];
  }

  page(slug: string): WikiPage | undefined {
    return this.pages.get(slug);
  }
}

/** Archived pages leave retrieval: they stay in git for history, not in answers. */
function retrievable(page: WikiPage): boolean {
  return page.readable && !isArchived(page);
}

function sameContent(a: WikiPage, b: WikiPage): boolean {
  const x = a.frontmatter;
  const y = b.frontmatter;
  return a.body === b.body && x.title === y.title && x.summary === y.summary && x.status === y.status && (x.tags ?? []).join(' ') === (y.tags ?? []).join(' ');
}

/** The paragraph (or fenced block) of a body that contains the most query terms, compared by stem as the index does. */
export function bestPassage(body: string, terms: readonly string[]): string {
  const stems = [...new Set(terms.map(stem))];
  let best = '';
  let bestScore = -1;
  for (const block of blocksOf(body)) {
    if (!block.includes('\n') && /^#+\s/.test(block)) continue; // a lone heading says little
    const words = [...new Set(tokenize(block).map(stem))];
    const score = stems.filter((stem) => words.some((word) => word.startsWith(stem))).length;
    if (score > bestScore) [best, bestScore] = [block, score];
  }
  return best.length > PASSAGE_MAX_CHARS ? `${best.slice(0, PASSAGE_MAX_CHARS).trimEnd()}…` : best;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Blocks separated by blank lines; a fenced code block is never split. */
function blocksOf(body: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let inFence = false;
  for (const line of body.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    if (!inFence && !line.trim()) {
      if (current.length) blocks.push(current.join('\n'));
      current = [];
    } else current.push(line);
  }
  if (current.length) blocks.push(current.join('\n'));
  return blocks;
}
