import { randomUUID } from 'node:crypto';
import { parseCitationText } from '../drift/citations';
import { WikiError } from '../errors';
import { isLlmError, type LanguageModel } from '../llm/languageModel';
import type { WikiPage } from '../model';
import type { WikiTool } from '../tools/tool';
import { PLACEHOLDER_TITLE_SOURCES, titleFromQuestion, type Conversation, type ConversationRecord, type ConversationStore, type PriorTurnsSummary, type SelectionContext, type ToolStep, type Turn, type TurnContext } from './conversation';
import { noMatchAnswer, OFFLINE_MODEL, offlineAnswer, type OfflineReason } from './offline';
import { buildPrompt, carriedPriorTurns, catalog, type PromptSettings } from './prompt';
import { describeModel, fitPrompt, type PromptBudget } from './promptBudget';
import { summarisePriorTurns } from './summary';
import { isConfident, retrievalQuery, WikiRetriever, type RetrievedPage } from './retrieval';
import { forkForEdit } from './lineage';
import { modelTitle } from './title';
import { runToolLoop, type ToolLoopEvents, type ToolLoopResult } from './toolLoop';

export interface ChatSettings extends PromptSettings {
  model: string;
  maxTokens: number;
  /** Pages retrieved per turn. */
  pagesPerTurn: number;
  /** Rounds of tool calls before the model must answer; 0 answers in one shot. */
  maxToolRounds: number;
  /** Input tokens over all rounds of one answer after which the model must answer. */
  toolTokenBudget: number;
}

/** The model to use for a turn, or why there is none (then the answer is offline). */
export type ModelChoice = { model: LanguageModel } | { offline: OfflineReason };

export interface AnswerDependencies {
  /** The wiki's pages as they are now. The same array means nothing changed (the index is reused). */
  pages(): Promise<readonly WikiPage[]>;
  /** Page age tags by slug ("stable for 3 months (+2)"), shown to the model in the catalog. */
  ages?(pages: readonly WikiPage[]): Promise<ReadonlyMap<string, string>>;
  chooseModel(): Promise<ModelChoice>;
  settings(): ChatSettings;
  /** The read-only tools the model may call; none means a one-shot answer. */
  tools?(): readonly WikiTool[];
  /** Whether a code citation resolves to code that exists now (a missing file or symbol does not). */
  resolves?(citation: { path: string; symbol?: string }): Promise<boolean>;
  /** Why earlier turns could not be summarised (the footer says only that they could not). */
  onSummaryFailed?(error: unknown): void;
  /** Why the model proposed no title (the conversation keeps the one it has). */
  onTitleFailed?(error: unknown): void;
  now?(): Date;
}

export interface ChatDependencies extends AnswerDependencies {
  store: ConversationStore;
  now(): Date;
}

export interface AskRequest {
  /** Continue this conversation; a new one is started when absent. */
  conversationId?: string;
  /** The id the new conversation gets (the terminal names its conversations); a random one when absent. */
  newConversationId?: string;
  question: string;
  selection?: SelectionContext;
  /** Slugs of pages to include whatever retrieval finds (pages citing the selected code). */
  attachedPages?: string[];
  /** Answer from retrieval alone even when a model is available. */
  offline?: boolean;
}

/** Ask question `turnIndex` (0-based) of a conversation again, edited, in a fork; the original stays as it is. */
export interface EditRequest {
  conversationId: string;
  turnIndex: number;
  question: string;
  /** The fork's id; a random one when absent. */
  newConversationId?: string;
}

export interface AskEvents extends ToolLoopEvents {
  /** The conversation the turn belongs to (created now when it is new). */
  onConversation?(conversation: Conversation): void;
  /** What the answer is grounded on, before it streams. */
  onContext?(context: TurnContext): void;
}

export interface AskResult {
  conversation: Conversation;
  turn: Turn;
  /** The user pressed Stop: the turn holds the text up to that point. */
  stopped: boolean;
  /** The answer as the engine gave it: retrieval results and steps, beyond what the turn keeps. */
  answer: Answer;
}

export interface AnswerRequest {
  question: string;
  priorTurns?: readonly Pick<Turn, 'question' | 'answer'>[];
  /** The summary kept from an earlier turn; reused while it covers exactly the turns that fall out. */
  priorSummary?: PriorTurnsSummary;
  /** Keeps a summary made for this answer, so later turns reuse it. */
  onSummary?(summary: PriorTurnsSummary): Promise<void>;
  selection?: SelectionContext;
  attachedPages?: string[];
  offline?: boolean;
}

export interface Answer {
  text: string;
  context: TurnContext;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** The user pressed Stop: `text` holds what streamed until then. */
  stopped: boolean;
  /** Retrieval results, best first (pinned pages first). */
  retrieved: RetrievedPage[];
  /** The tools the model called, in order. */
  steps: ToolStep[];
  /** Code citations whose current code a tool showed the model. */
  read: string[];
}

/** One grounded answer: retrieve, build the prompt, stream it from the model or answer offline. */
export class AnswerEngine {
  private cached?: { pages: readonly WikiPage[]; retriever: WikiRetriever; catalog: string };

  constructor(private readonly deps: AnswerDependencies) {}

  async answer(request: AnswerRequest, events: AskEvents, signal?: AbortSignal): Promise<Answer> {
    const question = request.question.trim();
    const priorTurns = request.priorTurns ?? [];
    const settings = this.deps.settings();
    const { retriever, catalog: catalogText } = await this.index();
    const retrieved = this.retrieve(retriever, retrievalQuery(question, priorTurns.at(-1)?.question), request.attachedPages ?? [], settings.pagesPerTurn);
    const choice = request.offline ? ({ offline: 'requested' } as const) : await this.deps.chooseModel();
    // Below the confidence floor (no page matches well), weak matches are not offered as the answer's grounding.
    const confident = isConfident(retrieved);
    const grounding = confident ? retrieved : [];
    const context: TurnContext = {
      pages: grounding.map((page) => ({ slug: page.slug, title: page.title, score: page.score, stale: page.status !== 'active' })),
      ...(request.selection ? { selection: request.selection } : {}),
      offline: 'offline' in choice,
    };
    const traits = 'model' in choice ? await describeModel(choice.model, settings.model, signal) : undefined;
    if (traits) context.contextWindow = traits.contextWindow;
    events.onContext?.(context);
    const base = { context, retrieved, steps: [] as ToolStep[], read: [] as string[], inputTokens: 0, outputTokens: 0, stopped: false };
    if ('offline' in choice) {
      // Turns that no longer fit the prompt: the footer says they were left out.
      const fallenOut = settings.maxPriorTurns > 0 ? priorTurns.length - carriedPriorTurns(priorTurns, settings).length : 0;
      if (fallenOut) context.unsummarisedPriorTurns = { count: fallenOut, reason: 'offline' };
      if (!confident) context.noMatch = true;
      // An offline answer quotes only the pages that match well: those are the pages it used.
      context.pages = context.pages.filter((page) => retrieved.find((found) => found.slug === page.slug)?.confident !== false);
      const text = offlineAnswer(retrieved, choice.offline);
      events.onText(text);
      return { ...base, text, model: OFFLINE_MODEL };
    }
    // A model that cannot call tools answers in one shot from retrieval; the footer says so.
    if (!traits!.tools && settings.maxToolRounds > 0) context.oneShot = true;
    const tools = settings.maxToolRounds > 0 && traits!.tools ? this.deps.tools?.() ?? [] : [];
    if (!confident && !tools.length) {
      // Nothing to look further with: say so plainly rather than have the model answer from weak matches.
      context.noMatch = true;
      const text = noMatchAnswer(retrieved);
      events.onText(text);
      return { ...base, text, model: OFFLINE_MODEL };
    }

    const pageBodies = new Map(grounding.map((page) => [page.slug, retriever.page(page.slug)?.body ?? page.passage]));
    let summary: PriorTurnsSummary | undefined;
    const specs = tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
    const build = (maxPriorTurns: number, budget: PromptSettings['budget']) => buildPrompt({
      question, priorTurns, retrieved: grounding, pageBodies, catalog: catalogText, selection: request.selection, settings: { ...settings, maxPriorTurns, budget }, tools: tools.length > 0, priorSummary: summary,
    });
    const fit = fitPrompt(traits!, settings.maxTokens, specs, build, settings.maxPriorTurns);
    const promptSettings = { ...settings, budget: fit.budget };
    // Turns that no longer fit the prompt: summarised when a model answers, else the footer says they were left out.
    const fallenOut = settings.maxPriorTurns > 0 ? priorTurns.length - carriedPriorTurns(priorTurns, promptSettings).length : 0;
    const steps: ToolStep[] = [];
    let streamed = '';
    const loopEvents: ToolLoopEvents = { ...events, onText: (delta) => { streamed += delta; events.onText(delta); } };
    const loopSettings = { ...settings, maxTokens: fit.budget.outputTokens, inputLimit: fit.budget.inputTokens, countTokens: traits!.countTokens };
    let budget = fit.budget;
    const loop = (maxPriorTurns: number) => runToolLoop(choice.model, { ...build(maxPriorTurns, budget), tools, settings: loopSettings, steps }, loopEvents, signal);
    const usage = { inputTokens: 0, outputTokens: 0 };
    try {
      if (fallenOut) {
        summary = await this.priorSummary(choice.model, { priorTurns, fallenOut, kept: request.priorSummary, save: request.onSummary, model: settings.model, inputChars: fit.budget.inputTokens * 3 }, usage, signal);
        if (summary) context.summarisedPriorTurns = fallenOut;
        else context.unsummarisedPriorTurns = { count: fallenOut, reason: 'failed' };
        // The summary joins the prompt: the catalog and pages make room for it, the turns carried stay the same.
        const keepTurns = (maxPriorTurns: number, next: PromptBudget) => build(maxPriorTurns, { ...next, priorTurnsTokens: fit.budget.priorTurnsTokens });
        if (summary) budget = { ...fitPrompt(traits!, settings.maxTokens, specs, keepTurns, settings.maxPriorTurns).budget, priorTurnsTokens: fit.budget.priorTurnsTokens };
      }
      let result: ToolLoopResult;
      try {
        result = await loop(settings.maxPriorTurns);
      } catch (error) {
        // Too long with history: drop the prior turns and their summary, try once more, and say so in the footer.
        if (!(isLlmError(error) && error.kind === 'context-too-long') || !priorTurns.length || !settings.maxPriorTurns || streamed) throw error;
        context.droppedPriorTurns = Math.min(priorTurns.length, settings.maxPriorTurns);
        delete context.summarisedPriorTurns;
        delete context.unsummarisedPriorTurns;
        result = await loop(0);
      }
      if (result.lastInputTokens) context.promptTokens = result.lastInputTokens;
      if (result.attempts.length) context.attempts = result.attempts;
      if (!confident && !steps.some((step) => step.ok)) context.noMatch = true;
      const unverified = await this.unverifiedCitations(result.text, result.read);
      if (unverified.length) context.unverified = unverified;
      return {
        ...base, steps, read: [...result.read], text: result.text, model: result.model,
        inputTokens: usage.inputTokens + result.inputTokens, outputTokens: usage.outputTokens + result.outputTokens,
      };
    } catch (error) {
      if (isLlmError(error) && error.attempts?.length) context.attempts = error.attempts;
      if (!(isLlmError(error) && error.kind === 'cancelled')) throw error;
      const text = streamed ? `${streamed.trimEnd()}\n\n_(stopped)_` : '_(stopped before any answer)_';
      return { ...base, ...usage, steps, text, model: settings.model, stopped: true };
    }
  }

  /**
   * The summary of the `fallenOut` oldest prior turns: the kept one when it covers exactly those,
   * else a new one (extending the kept one when it covers fewer), saved for later turns.
   * Undefined when the model could not make it; a cancel is rethrown.
   */
  private async priorSummary(
    model: LanguageModel,
    request: { priorTurns: readonly Pick<Turn, 'question' | 'answer'>[]; fallenOut: number; kept?: PriorTurnsSummary; save?: (summary: PriorTurnsSummary) => Promise<void>; model: string; inputChars: number },
    usage: { inputTokens: number; outputTokens: number },
    signal?: AbortSignal,
  ): Promise<PriorTurnsSummary | undefined> {
    if (request.kept?.turns === request.fallenOut) return request.kept;
    let made: Awaited<ReturnType<typeof summarisePriorTurns>>;
    try {
      made = await summarisePriorTurns(model, {
        priorTurns: request.priorTurns, turns: request.fallenOut, previous: request.kept, modelName: request.model, inputChars: request.inputChars, now: this.deps.now?.() ?? new Date(),
      }, signal);
    } catch (error) {
      if (isLlmError(error) && error.kind === 'cancelled') throw error;
      this.deps.onSummaryFailed?.(error);
      return undefined;
    }
    usage.inputTokens += made.inputTokens;
    usage.outputTokens += made.outputTokens;
    await request.save?.(made.summary);
    return made.summary;
  }

  /** Code citations of the answer that no tool showed the model and that do not resolve now. */
  private async unverifiedCitations(answer: string, read: ReadonlySet<string>): Promise<string[]> {
    const resolves = this.deps.resolves;
    if (!resolves) return [];
    const unverified: string[] = [];
    for (const raw of new Set(Array.from(answer.matchAll(/`([^`\n]+)`/g), (match) => match[1]))) {
      const citation = parseCitationText(raw);
      if (!citation || wasRead(citation, read)) continue;
      if (citation.outside || !(await resolves(citation))) unverified.push(citation.text);
    }
    return unverified;
  }

  private retrieve(retriever: WikiRetriever, query: string, attached: readonly string[], limit: number): RetrievedPage[] {
    const found = retriever.search(query, limit + attached.length);
    const pinned = attached
      .map((slug) => found.find((page) => page.slug === slug) ?? pinnedPage(retriever, slug))
      .filter((page): page is RetrievedPage => !!page);
    const rest = found.filter((page) => !attached.includes(page.slug));
    return [...pinned, ...rest].slice(0, Math.max(limit, pinned.length));
  }

  private async index() {
    const pages = await this.deps.pages();
    if (this.cached?.pages !== pages) {
      const ages = await this.deps.ages?.(pages).catch(() => undefined);
      this.cached = { pages, retriever: new WikiRetriever(pages), catalog: catalog(pages, undefined, ages) };
    }
    return this.cached;
  }
}

/** A chat turn in a stored conversation: the answer, then the turn persisted. */
export class ChatService {
  private readonly engine: AnswerEngine;

  constructor(private readonly deps: ChatDependencies) {
    this.engine = new AnswerEngine(deps);
  }

  async ask(request: AskRequest, events: AskEvents, signal?: AbortSignal): Promise<AskResult> {
    const question = request.question.trim();
    const store = this.deps.store;
    const { conversation, existing } = await this.conversationFor(request, question);
    events.onConversation?.(conversation);
    let answer: Answer;
    try {
      answer = await this.engine.answer({
        ...request, question, priorTurns: existing?.turns ?? [], priorSummary: existing?.conversation.priorSummary,
        onSummary: (summary) => store.setPriorSummary(conversation.id, summary),
      }, events, signal);
    } catch (error) {
      // A conversation whose first turn failed has nothing in it: do not leave it in the history.
      if (!existing) await store.delete(conversation.id);
      throw error;
    }
    const turn = await store.appendTurn(this.turnFrom(conversation.id, question, answer));
    const updated = (await store.get(conversation.id))?.conversation ?? conversation;
    return { conversation: updated, turn, stopped: answer.stopped, answer };
  }

  /**
   * Answers the last question again (Retry). Both answers are kept as siblings and the new one is
   * shown, so the next turn continues from it; an earlier question is edited in a fork instead.
   * When the new answer fails, nothing is stored and the first answer stays.
   */
  async retry(conversationId: string, events: AskEvents, signal?: AbortSignal): Promise<AskResult> {
    const store = this.deps.store;
    const record = await store.get(conversationId);
    if (!record) throw new WikiError('conversation-not-found', `There is no conversation "${conversationId}" to retry.`, 'It may have been deleted in another window; open the history again.');
    const index = record.turns.length - 1;
    if (index < 0) throw new WikiError('turn-not-found', 'This conversation has no answer to retry yet.', 'Ask a question first.');
    const asked = record.turns[index];
    events.onConversation?.(record.conversation);
    // A summary of more turns than come before the question would tell the model its own first answer.
    const summary = record.conversation.priorSummary;
    const answer = await this.engine.answer({
      question: asked.question, ...(asked.context.selection ? { selection: asked.context.selection } : {}),
      priorTurns: record.turns.slice(0, index), priorSummary: summary && summary.turns <= index ? summary : undefined,
      onSummary: (next) => store.setPriorSummary(conversationId, next),
    }, events, signal);
    const turn = await store.appendSibling(this.turnFrom(conversationId, asked.question, answer), index);
    const updated = (await store.get(conversationId))?.conversation ?? record.conversation;
    return { conversation: updated, turn, stopped: answer.stopped, answer };
  }

  /**
   * Forks the conversation before question `turnIndex` (turns 1..k-1 of question k) and asks the
   * edited question there as turn k, with the selection the original question had. The original is
   * never written to. When the edited question fails, the fork goes too: nothing was made of it.
   */
  async edit(request: EditRequest, events: AskEvents, signal?: AbortSignal): Promise<AskResult> {
    const store = this.deps.store;
    const parent = await store.get(request.conversationId);
    if (!parent) throw new WikiError('conversation-not-found', `There is no conversation "${request.conversationId}" to edit.`, 'It may have been deleted in another window; open the history again.');
    const fork = forkForEdit(parent, request.turnIndex, request.newConversationId ?? randomUUID(), this.deps.now().toISOString());
    await store.addRecord(fork);
    const selection = parent.turns[request.turnIndex].context.selection;
    try {
      return await this.ask({ conversationId: fork.conversation.id, question: request.question, ...(selection ? { selection } : {}) }, events, signal);
    } catch (error) {
      await store.delete(fork.conversation.id);
      throw error;
    }
  }

  /**
   * After an answer, replaces a placeholder title (the first question, or a fork's parent title)
   * with one the model proposes from the turn just answered; offline, a fork is titled after that
   * question instead. A title the user gave is never replaced, nor one already proposed.
   * Resolves with the conversation when a title was proposed.
   */
  async proposeTitle(conversationId: string, signal?: AbortSignal): Promise<Conversation | undefined> {
    const store = this.deps.store;
    const record = await store.get(conversationId);
    const source = record?.conversation.titleSource;
    const turn = record?.turns.at(-1);
    if (!record || !turn || !source || !PLACEHOLDER_TITLE_SOURCES.includes(source)) return undefined;
    const choice = await this.deps.chooseModel();
    let proposed: { title: string; source: 'model' | 'question' } | undefined;
    if ('model' in choice) {
      try {
        proposed = { title: await modelTitle(choice.model, turn, this.deps.settings().model, signal), source: 'model' };
      } catch (error) {
        if (isLlmError(error) && error.kind === 'cancelled') return undefined; // Stop pressed: keep the title it has
        this.deps.onTitleFailed?.(error);
      }
    }
    // A fork that could not get a model's title still gets its own, from the question it went on with.
    if (!proposed && source === 'fork') proposed = { title: titleFromQuestion(turn.question), source: 'question' };
    // Recorded even when it equals the placeholder, so the title is settled and never asked for again.
    if (!proposed || !(await store.proposeTitle(conversationId, proposed.title, proposed.source))) return undefined;
    return (await store.get(conversationId))?.conversation;
  }

  /** The turn that keeps an answer to `question`. */
  private turnFrom(conversationId: string, question: string, answer: Answer): Omit<Turn, 'index'> {
    return {
      conversationId, question, answer: answer.text, context: answer.context, model: answer.model,
      inputTokens: answer.inputTokens, outputTokens: answer.outputTokens, created: this.deps.now().toISOString(),
      ...(answer.steps.length ? { steps: answer.steps } : {}),
    };
  }

  /** The conversation asked to continue (`existing`), or a new one. */
  private async conversationFor(request: AskRequest, question: string): Promise<{ conversation: Conversation; existing?: ConversationRecord }> {
    const store = this.deps.store;
    const existing = request.conversationId ? await store.get(request.conversationId) : undefined;
    if (existing) return { conversation: existing.conversation, existing };
    try {
      return { conversation: await store.create(titleFromQuestion(question), request.newConversationId) };
    } catch (error) {
      // Asked to continue or start this id, and another process started it meanwhile (a second terminal): continue it.
      const continuable = request.conversationId !== undefined && request.conversationId === request.newConversationId;
      const started = continuable && error instanceof WikiError && error.code === 'conversation-exists' ? await store.get(request.conversationId!) : undefined;
      if (!started) throw error;
      return { conversation: started.conversation, existing: started };
    }
  }
}

/** A citation counts as read when a tool showed it, its whole file, or lines of that file. */
function wasRead(citation: { text: string; path: string }, read: ReadonlySet<string>): boolean {
  if (read.has(citation.text) || read.has(citation.path)) return true;
  for (const entry of read) if (entry.startsWith(`${citation.path}#`)) return true;
  return false;
}

function pinnedPage(retriever: WikiRetriever, slug: string): RetrievedPage | undefined {
  const page = retriever.page(slug);
  if (!page) return undefined;
  const fm = page.frontmatter;
  return { slug, title: fm.title ?? slug, summary: fm.summary ?? '', status: fm.status ?? 'active', score: 0, passage: page.body.trim().split(/\n\s*\n/)[0] ?? '' };
}
