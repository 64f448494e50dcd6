import { queryTerms, tokenize, WikiRetriever } from '../chat/retrieval';
import { isFileAccessError, WikiError } from '../errors';
import { addAttempts } from '../llm/fallbackChain';
import { LlmError, type ChatMessage, type LanguageModel, type ModelAttempt } from '../llm/languageModel';
import type { LogEntry, WikiPage } from '../model';
import type { Wiki } from '../wiki/wiki';
import { preparePlan, type CitationResolver, type PreparedPlan } from './changes';
import { contentHash, notCompared, pastIngests, sourceDiff, sourceEntry } from './memory';
import { parsePlan, type Plan, type PlannedPage, type PlanProblem } from './plan';
import { buildIngestPrompt, chunkSource, repairMessage, type SourceChunk } from './prompt';

/** One thing to ingest: a file or a selection, already read. */
export interface IngestSource {
  /** Provenance recorded in pages' `sources`: `file:docs/a.md` or `file:src/a.ts#L10-L40`. */
  ref: string;
  /** Workspace-relative path. */
  path: string;
  text: string;
  /** The file line `text` starts at, for a selection (default 1). */
  firstLine?: number;
}

export interface IngestSettings {
  model: string;
  maxTokens: number;
  /** Largest source chunk sent in one request. */
  chunkTokens: number;
}

export interface IngestProgress {
  /** Before each request: which source and which part of it. */
  onChunk?(info: { source: number; sources: number; chunk: SourceChunk }): void;
  onRetry?(info: { attempt: number; delayMs: number; status: number }): void;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  requests: number;
}

export interface IngestPlanResult extends PreparedPlan {
  /** The sources planned from (refs); their content versions, for the log, are in `hashes`. */
  sources: string[];
  hashes: Record<string, string>;
  /** Sources skipped because their content is what the last successful ingest saw. */
  unchanged: { ref: string; path: string; since: string }[];
  usage: TokenUsage;
  model: string;
  /** Models of the fallback chain that failed before `model` answered. */
  attempts: ModelAttempt[];
}

/** The model's reply broke the contract, or the plan does not fit the wiki; nothing was written. */
export class PlanRejectedError extends WikiError {
  constructor(
    readonly problems: readonly PlanProblem[],
    /** The model's raw replies; each front end shows them and says where. */
    readonly replies: readonly string[],
  ) {
    super(
      'plan-rejected',
      `The librarian's plan was rejected, so nothing was written: ${problems.slice(0, 3).map((p) => `${p.path} ${p.message}`).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}.`,
      'Try again, or ingest a smaller source.',
    );
  }
}

export interface IngestDeps {
  wiki: Wiki;
  model: LanguageModel;
  resolver: CitationResolver;
  settings: IngestSettings;
  today: string;
  ages?: ReadonlyMap<string, string>;
  /** Ingest even sources unchanged since their last ingest. */
  force?: boolean;
  /**
   * An earlier version of a source by its blob id, when git has it: the librarian then sees the diff.
   * A reader that learns the size first answers `{ tooLarge: bytes }` past MAX_COMPARED_BYTES.
   */
  previousText?(hash: string): Promise<string | undefined | { tooLarge: number }>;
}

const RELATED_PAGES = 4;
const QUERY_TERMS = 40;
/** Candidates the duplicate check compares a new page with. */
const SIMILAR_PAGES = 8;

/**
 * Asks the librarian for a plan per chunk of each source, merges the plans and prepares the page
 * changes. Writes nothing: the caller previews the changes, then `applyChanges`.
 */
export async function planIngest(deps: IngestDeps, given: readonly IngestSource[], signal?: AbortSignal, progress: IngestProgress = {}): Promise<IngestPlanResult> {
  const { wiki, settings } = deps;
  const { sources, unchanged, hashes, changedSince } = await rememberSources(deps, given);
  if (!sources.length) return { changes: [], notes: [], problems: [], sources: [], hashes: {}, unchanged, usage: { inputTokens: 0, outputTokens: 0, requests: 0 }, model: settings.model, attempts: [] };
  const pages = await wiki.loadPages();
  const schema = (await wiki.readSchema()) ?? '';
  const retriever = retrieverFor(wiki.root, pages);
  const merged: Plan = { pages: [], corroborate: [], links: [] };
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, requests: 0 };
  const replies: string[] = [];
  let model = settings.model;
  const attempts: ModelAttempt[] = [];
  for (const [i, source] of sources.entries()) {
    for (const chunk of chunkSource(source.ref, source.path, source.text, settings.chunkTokens, source.firstLine)) {
      progress.onChunk?.({ source: i, sources: sources.length, chunk });
      if (signal?.aborted) throw new LlmError('cancelled', 'Stopped.');
      const related = relatedPages(retriever, chunk);
      const changed = chunk.part === 1 ? changedSince.get(source.ref) : undefined;
      const prompt = buildIngestPrompt({ schema, pages, related, planned: merged.pages, chunk, ages: deps.ages, changed });
      const answer = await askForPlan(deps, prompt, usage, replies, signal, progress);
      model = answer.model;
      addAttempts(attempts, answer.attempts);
      mergePlan(merged, answer.plan);
    }
  }
  const refs = [...new Set(sources.map((source) => source.ref))];
  const entries = refs.map((ref) => sourceEntry(ref, hashes[ref]));
  const similar = (text: string) => retriever.search(queryTerms(text).slice(0, QUERY_TERMS).join(' '), SIMILAR_PAGES, { passages: false, exact: true }).map((hit) => retriever.page(hit.slug)!);
  const prepared = await preparePlan(merged, wiki, pages, deps.resolver, { sources: entries, today: deps.today, similar });
  if (prepared.problems.length) throw new PlanRejectedError(prepared.problems, replies);
  return { ...prepared, sources: refs, hashes, unchanged, usage, model, attempts };
}

/**
 * Leaves out the sources whose content the last successful ingest already saw (unless forced),
 * and for the changed ones finds what changed since, when git still has the old version.
 */
async function rememberSources(deps: IngestDeps, given: readonly IngestSource[]) {
  const past = pastIngests(await readableLog(deps.wiki));
  const sources: IngestSource[] = [];
  const unchanged: IngestPlanResult['unchanged'] = [];
  const hashes: Record<string, string> = {};
  const changedSince = new Map<string, { since: string; diff: string }>();
  for (const source of given) {
    const hash = contentHash(source.text);
    const last = past.get(source.ref);
    if (last?.hash === hash && !deps.force) {
      unchanged.push({ ref: source.ref, path: source.path, since: last.ts });
      continue;
    }
    sources.push(source);
    hashes[source.ref] = hash;
    const before = last && last.hash !== hash ? await deps.previousText?.(last.hash) : undefined;
    if (last && before !== undefined) changedSince.set(source.ref, { since: last.ts, diff: typeof before === 'string' ? sourceDiff(source.path, before, source.text) : notCompared() });
  }
  return { sources, unchanged, hashes, changedSince };
}

/**
 * The log's entries, or none when the log cannot be read safely (a link out of the wiki): then
 * nothing is remembered, and the write at the end refuses that log with its own message.
 */
async function readableLog(wiki: Wiki): Promise<LogEntry[]> {
  try {
    return (await wiki.readLog()).entries;
  } catch (error) {
    if (!isFileAccessError(error)) throw error;
    return [];
  }
}

/** One request, and one repair request when the reply breaks the contract. */
async function askForPlan(
  deps: IngestDeps,
  prompt: ReturnType<typeof buildIngestPrompt>,
  usage: TokenUsage,
  replies: string[],
  signal: AbortSignal | undefined,
  progress: IngestProgress,
): Promise<{ plan: Plan; model: string; attempts?: ModelAttempt[] }> {
  const messages: ChatMessage[] = [...prompt.messages];
  for (let attempt = 0; ; attempt++) {
    const completion = await deps.model.complete(
      { model: deps.settings.model, maxTokens: deps.settings.maxTokens, system: prompt.system, messages },
      { onText: () => undefined, onRetry: progress.onRetry },
      signal,
    );
    usage.inputTokens += completion.inputTokens;
    usage.outputTokens += completion.outputTokens;
    usage.requests++;
    replies.push(completion.text);
    const parsed = parsePlan(completion.text);
    if ('plan' in parsed) return { plan: parsed.plan, model: completion.model, attempts: completion.attempts };
    const problems = completion.stopReason === 'max_tokens'
      ? [{ path: '$', message: `the reply was cut off at ${deps.settings.maxTokens} tokens (raise repoWiki.llm.maxTokens or ingest less at once)` }, ...parsed.problems]
      : parsed.problems;
    if (attempt >= 1 || completion.stopReason === 'max_tokens') throw new PlanRejectedError(problems, replies);
    messages.push({ role: 'assistant', content: completion.text }, { role: 'user', content: repairMessage(problems) });
  }
}

// One search index per wiki, kept in step with its pages, so each ingest re-indexes only what changed.
const retrievers = new Map<string, WikiRetriever>();

function retrieverFor(root: string, pages: readonly WikiPage[]): WikiRetriever {
  const cached = retrievers.get(root);
  if (cached) {
    cached.sync(pages);
    return cached;
  }
  const retriever = new WikiRetriever(pages);
  retrievers.set(root, retriever);
  return retriever;
}

/** The lexical pre-check: existing pages that share the most words with the chunk. */
function relatedPages(retriever: WikiRetriever, chunk: SourceChunk): WikiPage[] {
  const text = chunk.text.slice(0, 200_000);
  const wanted = new Set(queryTerms(text));
  const counts = new Map<string, number>();
  for (const word of tokenize(text)) if (wanted.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const frequent = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, QUERY_TERMS).map(([word]) => word);
  const terms = [...queryTerms(chunk.path), ...frequent];
  return retriever.search(terms.join(' '), RELATED_PAGES, { passages: false, exact: true }).map((hit) => retriever.page(hit.slug)!).filter(Boolean);
}

/** Later chunks refine earlier ones: a page planned twice keeps its first action and its latest content. */
export function mergePlan(into: Plan, next: Plan): void {
  for (const page of next.pages) {
    const at = into.pages.findIndex((planned) => planned.slug === page.slug);
    if (at < 0) into.pages.push(page);
    else into.pages[at] = { ...page, action: into.pages[at].action } satisfies PlannedPage;
  }
  for (const corroboration of next.corroborate) {
    if (!into.corroborate.some((c) => c.slug === corroboration.slug)) into.corroborate.push(corroboration);
  }
  for (const link of next.links) {
    if (!into.links.some((l) => l.from === link.from && l.to === link.to)) into.links.push(link);
  }
}
