import { isLlmError, type LanguageModel, type StreamCallbacks } from '../llm';
import type { WikiPage } from '../model';
import { titleFromQuestion, type Conversation, type ConversationStore, type SelectionContext, type Turn, type TurnContext } from './conversation';
import { OFFLINE_MODEL, offlineAnswer, type OfflineReason } from './offline';
import { buildPrompt, catalog, type PromptSettings } from './prompt';
import { retrievalQuery, WikiRetriever, type RetrievedPage } from './retrieval';

export interface ChatSettings extends PromptSettings {
  model: string;
  maxTokens: number;
  /** Pages retrieved per turn. */
  pagesPerTurn: number;
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
}

export interface ChatDependencies extends AnswerDependencies {
  store: ConversationStore;
  now(): Date;
}

export interface AskRequest {
  /** Continue this conversation; a new one is started when absent. */
  conversationId?: string;
  question: string;
  selection?: SelectionContext;
  /** Slugs of pages to include whatever retrieval finds (pages citing the selected code). */
  attachedPages?: string[];
  /** Answer from retrieval alone even when a model is available. */
  offline?: boolean;
}

export interface AskEvents extends StreamCallbacks {
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
}

export interface AnswerRequest {
  question: string;
  priorTurns?: readonly Pick<Turn, 'question' | 'answer'>[];
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
    const context: TurnContext = {
      pages: retrieved.map((page) => ({ slug: page.slug, title: page.title, score: page.score, stale: page.status !== 'active' })),
      ...(request.selection ? { selection: request.selection } : {}),
      offline: 'offline' in choice,
    };
    events.onContext?.(context);
    const base = { context, retrieved, inputTokens: 0, outputTokens: 0, stopped: false };
    if ('offline' in choice) {
      const text = offlineAnswer(retrieved, choice.offline);
      events.onText(text);
      return { ...base, text, model: OFFLINE_MODEL };
    }

    const pageBodies = new Map(retrieved.map((page) => [page.slug, retriever.page(page.slug)?.body ?? page.passage]));
    const prompt = (maxPriorTurns: number) => buildPrompt({
      question, priorTurns, retrieved, pageBodies, catalog: catalogText, selection: request.selection, settings: { ...settings, maxPriorTurns },
    });
    let streamed = '';
    const callbacks: StreamCallbacks = { onText: (delta) => { streamed += delta; events.onText(delta); }, onRetry: events.onRetry };
    const complete = (maxPriorTurns: number) => choice.model.complete({ model: settings.model, maxTokens: settings.maxTokens, ...prompt(maxPriorTurns) }, callbacks, signal);
    try {
      let completion;
      try {
        completion = await complete(settings.maxPriorTurns);
      } catch (error) {
        // Too long with history: drop the prior turns and try once more.
        if (!(isLlmError(error) && error.kind === 'context-too-long') || !priorTurns.length || !settings.maxPriorTurns) throw error;
        completion = await complete(0);
      }
      return { ...base, text: completion.text, model: completion.model, inputTokens: completion.inputTokens, outputTokens: completion.outputTokens };
    } catch (error) {
      if (!(isLlmError(error) && error.kind === 'cancelled')) throw error;
      const text = streamed ? `${streamed}\n\n_(stopped)_` : '_(stopped before any answer)_';
      return { ...base, text, model: settings.model, stopped: true };
    }
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
    const existing = request.conversationId ? await store.get(request.conversationId) : undefined;
    const conversation = existing?.conversation ?? (await store.create(titleFromQuestion(question)));
    events.onConversation?.(conversation);
    let answer: Answer;
    try {
      answer = await this.engine.answer({ ...request, question, priorTurns: existing?.turns ?? [] }, events, signal);
    } catch (error) {
      // A conversation whose first turn failed has nothing in it: do not leave it in the history.
      if (!existing) await store.delete(conversation.id);
      throw error;
    }
    const turn = await store.appendTurn({
      conversationId: conversation.id, question, answer: answer.text, context: answer.context, model: answer.model,
      inputTokens: answer.inputTokens, outputTokens: answer.outputTokens, created: this.deps.now().toISOString(),
    });
    const updated = (await store.get(conversation.id))?.conversation ?? conversation;
    return { conversation: updated, turn, stopped: answer.stopped };
  }
}

function pinnedPage(retriever: WikiRetriever, slug: string): RetrievedPage | undefined {
  const page = retriever.page(slug);
  if (!page) return undefined;
  const fm = page.frontmatter;
  return { slug, title: fm.title ?? slug, summary: fm.summary ?? '', status: fm.status ?? 'active', score: 0, passage: page.body.trim().split(/\n\s*\n/)[0] ?? '' };
}
