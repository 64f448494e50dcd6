import { runToolLoop, type ToolStepEvent } from '../chat/toolLoop';
import { WikiError } from '../errors';
import { writeChangesLocked } from '../ingest/apply';
import { preparePlan, type CitationResolver, type PageChange, type PreparedPlan } from '../ingest/changes';
import { parsePlan, type PlanProblem } from '../ingest/plan';
import { repairMessage } from '../ingest/prompt';
import { anchorAt } from '../drift/symbols';
import { LlmError, type ChatMessage, type LanguageModel } from '../llm/languageModel';
import type { WikiTool } from '../tools/tool';
import type { Wiki } from '../wiki/wiki';
import { BudgetExhaustedError, budgetedModel, type TokenBudget } from './budget';
import { parseOutline, type OutlinePage } from './outline';
import { buildOutlinePrompt, buildPagePrompt, type OutlineInput } from './prompt';
import { generateSource } from './resume';

export interface GenerateSettings {
  model: string;
  /** Output tokens of one request. */
  maxTokens: number;
  /** Rounds of tool calls a page may take before it must answer. */
  maxToolRounds: number;
  /** Input tokens over one page's rounds after which it must answer. */
  toolTokenBudget: number;
}

export interface GenerateDeps {
  wiki: Wiki;
  model: LanguageModel;
  /** Every request goes through it: a request that could overrun it is never sent. */
  budget: TokenBudget;
  resolver: CitationResolver;
  /** The read-only tools a page's writer may call. */
  tools: readonly WikiTool[];
  settings: GenerateSettings;
  today: string;
  /** HEAD, recorded in each anchor of a written page, so "what changed" has a base. */
  commit?: string;
  /**
   * Asked before a valid page is written: the changes to write. Without a change that writes the
   * page itself it is declined (nothing written, the run goes on). Without a review every valid
   * page is written (the CLI asked once, for the whole outline).
   */
  review?(slug: string, changes: readonly PageChange[]): Promise<readonly PageChange[]>;
}

/** The outline broke its contract twice (a reply and its repair); nothing was written. */
export class OutlineRejectedError extends WikiError {
  constructor(readonly problems: readonly PlanProblem[], readonly replies: readonly string[]) {
    super('outline-rejected', `The librarian's outline was rejected, so nothing was written: ${problems.slice(0, 3).map((p) => `${p.path} ${p.message}`).join('; ')}.`, 'Run it again, or name the pages you want in .wiki/generate.json.');
  }
}

/** One request for the outline and, when it breaks the contract, one repair. */
export async function draftOutline(deps: GenerateDeps, input: OutlineInput, signal?: AbortSignal): Promise<{ outline: OutlinePage[]; model: string }> {
  const prompt = buildOutlinePrompt(input);
  const messages: ChatMessage[] = [...prompt.messages];
  const replies: string[] = [];
  const model = budgetedModel(deps.model, deps.budget);
  for (let attempt = 0; ; attempt++) {
    const completion = await model.complete({ model: deps.settings.model, maxTokens: deps.settings.maxTokens, system: prompt.system, messages }, { onText: () => undefined }, signal);
    replies.push(completion.text);
    const parsed = parseOutline(completion.text, input.steering.pages);
    if ('outline' in parsed) return { outline: parsed.outline, model: completion.model };
    if (attempt >= 1) throw new OutlineRejectedError(parsed.problems, replies);
    messages.push({ role: 'assistant', content: completion.text }, { role: 'user', content: repairMessage(parsed.problems) });
  }
}

export interface GenerateProgress {
  onPage?(info: { index: number; total: number; slug: string }): void;
  onRepair?(info: { slug: string; problems: readonly PlanProblem[] }): void;
  onToolStep?(event: ToolStepEvent): void;
  onRetry?(info: { attempt: number; delayMs: number; status: number }): void;
}

/**
 * Why a run ended before its last page: the budget would have been overrun, it was cancelled, no
 * model answered, or something else failed (a write, say: then the run throws a `RunFailedError`).
 */
export type RunStop = { reason: 'budget'; needed: number; left: number } | { reason: 'cancelled' } | { reason: 'failed'; message: string } | { reason: 'error'; message: string };

/** What a page's error does to the run: the model's errors stop it cleanly; anything else is an `error` stop. */
export function runStop(error: unknown): RunStop {
  if (error instanceof BudgetExhaustedError) return { reason: 'budget', needed: error.needed, left: error.left };
  if (error instanceof LlmError) return error.kind === 'cancelled' ? { reason: 'cancelled' } : { reason: 'failed', message: error.message };
  return { reason: 'error', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Something other than the model failed midway (a write, the disk). `report` holds what the run
 * accepted before it, so the caller can still log the run; `failure` is the error itself.
 */
export class RunFailedError<R> extends Error {
  constructor(readonly report: R, readonly failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

export interface GenerateReport {
  written: string[];
  /** Valid pages the review declined; nothing of them was written. */
  declined: string[];
  rejected: { slug: string; problems: PlanProblem[] }[];
  stopped?: RunStop;
  /** Pages of the run not attempted (after a stop). */
  notAttempted: string[];
  model: string;
}

/**
 * Writes the pages one by one, each with the tool loop and ending in a plan of the ingest
 * contract. A plan that breaks the contract or cites what does not exist goes back once with its
 * problems; a second failure rejects the page and the run goes on. Each accepted page is written
 * at once (atomically, stamped with `commit`), so a stop keeps the pages already written. Logs nothing:
 * the caller logs the run once (`runLogged`). A failure other than the model's throws a `RunFailedError`.
 */
export async function writePages(deps: GenerateDeps, outline: readonly OutlinePage[], toWrite: readonly OutlinePage[], notes: string, signal?: AbortSignal, progress: GenerateProgress = {}): Promise<GenerateReport> {
  const report: GenerateReport = { written: [], declined: [], rejected: [], notAttempted: [], model: deps.settings.model };
  for (const [index, page] of toWrite.entries()) {
    if (signal?.aborted) {
      report.stopped = { reason: 'cancelled' };
    } else {
      progress.onPage?.({ index, total: toWrite.length, slug: page.slug });
      try {
        const outcome = await writePage(deps, outline, page, notes, report, signal, progress);
        if ('problems' in outcome) report.rejected.push({ slug: page.slug, problems: outcome.problems });
        else (outcome.written ? report.written : report.declined).push(page.slug);
      } catch (error) {
        report.stopped = runStop(error);
        if (report.stopped.reason === 'error') throw new RunFailedError({ ...report, notAttempted: toWrite.slice(index).map((rest) => rest.slug) }, error);
      }
    }
    if (report.stopped) {
      report.notAttempted = toWrite.slice(index).map((rest) => rest.slug);
      break;
    }
  }
  return report;
}

async function writePage(deps: GenerateDeps, outline: readonly OutlinePage[], page: OutlinePage, notes: string, report: GenerateReport, signal: AbortSignal | undefined, progress: GenerateProgress): Promise<{ written: boolean } | { problems: PlanProblem[] }> {
  const { wiki, settings } = deps;
  const model = budgetedModel(deps.model, deps.budget);
  const pages = await wiki.loadPages();
  const prompt = buildPagePrompt({ schema: (await wiki.readSchema()) ?? '', notes, page, outline, pages });
  let messages: ChatMessage[] = prompt.messages;
  for (let attempt = 0; ; attempt++) {
    const answer = await runToolLoop(model, { system: prompt.system, messages, tools: deps.tools, settings, steps: [] }, { onText: () => undefined, onToolStep: progress.onToolStep, onRetry: progress.onRetry }, signal);
    report.model = answer.model;
    const prepared = await preparePage(deps, page.slug, answer.text, [generateSource(page.slug)]);
    if (!prepared.problems.length) return { written: await writeReviewed(deps, page.slug, prepared.changes) };
    if (attempt >= 1) return { problems: prepared.problems };
    progress.onRepair?.({ slug: page.slug, problems: prepared.problems });
    messages = [...messages, { role: 'assistant', content: answer.text }, { role: 'user', content: repairMessage(prepared.problems) }];
  }
}

/** Writes a page's changes at once, unless the review declines them; whether they were written. */
export async function writeReviewed(deps: GenerateDeps, slug: string, changes: readonly PageChange[]): Promise<boolean> {
  const kept = deps.review ? await deps.review(slug, changes) : changes;
  if (!kept.some((change) => change.slug === slug && (change.kind === 'create' || change.kind === 'update'))) return false;
  await deps.wiki.exclusive((writes) => writeChangesLocked(deps.wiki, writes, kept));
  return true;
}

/** The reply as page changes, through ingest's validation; the plan must write exactly the page `slug`, recording `sources`. */
export async function preparePage(deps: GenerateDeps, slug: string, reply: string, sources: readonly string[]): Promise<PreparedPlan> {
  const parsed = parsePlan(reply);
  if ('problems' in parsed) return { changes: [], notes: [], problems: parsed.problems };
  const { plan } = parsed;
  const problems: PlanProblem[] = [];
  if (plan.pages.length !== 1 || plan.pages[0].slug !== slug) problems.push({ path: '$.pages', message: `must hold exactly one page, with the slug "${slug}"` });
  if (plan.corroborate.length) problems.push({ path: '$.corroborate', message: 'must be empty: a generated page only writes itself' });
  if (problems.length) return { changes: [], notes: [], problems };
  const pages = await deps.wiki.loadPages();
  const prepared = await preparePlan(plan, deps.wiki, pages, stampedAt(deps.resolver, deps.commit), { sources, today: deps.today });
  // A page the wiki already holds is only corroborated by ingest; here it would be a page not written.
  const writes = prepared.changes.some((change) => change.slug === slug && (change.kind === 'create' || change.kind === 'update'));
  if (!prepared.problems.length && !writes) return { ...prepared, changes: [], problems: [{ path: '$.pages', message: `does not write "${slug}": ${prepared.notes.join(' ') || 'the plan changes nothing'} Write what this page alone covers.` }] };
  return prepared;
}

/** The resolver whose anchors name the commit the code was verified at. */
function stampedAt(resolver: CitationResolver, commit: string | undefined): CitationResolver {
  return { currentAnchor: async (citation) => {
    const anchor = await resolver.currentAnchor(citation);
    return anchor ? anchorAt(anchor, commit) : anchor;
  } };
}

