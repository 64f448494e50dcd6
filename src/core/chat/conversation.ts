import type { ModelAttempt } from '../llm/languageModel';
/** Conversations: plain data and the store port. The sql.js adapter implements the store. */

export interface Conversation {
  id: string;
  /** The first question, truncated, until the model proposes one; the user can rename it. */
  title: string;
  /** Where the title came from; absent for conversations from before this was kept (never replaced). */
  titleSource?: TitleSource;
  /** ISO timestamps. */
  created: string;
  updated: string;
  /** Slug of the page this conversation was saved to, if any. */
  filedPage?: string;
  turnCount: number;
  /** Running totals over the conversation's turns. */
  inputTokens: number;
  outputTokens: number;
  /** Normalised (see shared/tags.ts), sorted, unique. */
  tags: string[];
  /** The model's summary of the turns that no longer fit the prompt, reused until more fall out. */
  priorSummary?: PriorTurnsSummary;
  /** Set on a fork: the conversation it was forked from... */
  parentConversationId?: string;
  /** ...and how many of its turns (1..N) the fork started with. */
  forkedAtTurn?: number;
}

/**
 * `question` (the first question, truncated) and `fork` (the parent's title) are placeholders that a
 * proposed title replaces; `model` was proposed after an answer; `user` was renamed and is never replaced.
 */
export type TitleSource = 'question' | 'fork' | 'model' | 'user';

/** Title sources a proposed title may replace. */
export const PLACEHOLDER_TITLE_SOURCES: readonly TitleSource[] = ['question', 'fork'];

export const isTitleSource = (value: unknown): value is TitleSource => value === 'question' || value === 'fork' || value === 'model' || value === 'user';

/** A summary of a conversation's first `turns` turns, made by `model`. */
export interface PriorTurnsSummary {
  text: string;
  turns: number;
  model: string;
  created: string;
}

/** A code selection attached to a question ("Ask about selection"). */
export interface SelectionContext {
  /** Workspace-relative path. */
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  language: string;
  text: string;
  /** True when `text` was cut to the size cap. */
  truncated: boolean;
}

/** What a turn's answer was grounded on. */
export interface TurnContext {
  pages: { slug: string; title: string; score: number; stale: boolean }[];
  selection?: SelectionContext;
  /** Answered from retrieval alone, without a model. */
  offline: boolean;
  /** Code citations in the answer that no tool showed the model and that do not resolve. */
  unverified?: string[];
  /** The input tokens of the answer's largest request (its last round): how full the model's context was. */
  promptTokens?: number;
  /** Prior turns left out of the prompt because it did not fit the model's context. */
  droppedPriorTurns?: number;
  /** The prompt carried a summary of this many earlier turns instead of the turns themselves. */
  summarisedPriorTurns?: number;
  /** Earlier turns that did not fit and could not be summarised, and why. */
  unsummarisedPriorTurns?: { count: number; reason: 'offline' | 'failed' };
  /** No page cleared the confidence floor and no tool found anything: the answer says so. */
  noMatch?: boolean;
  /** The answering model's window, in tokens, for the near-limit warning. */
  contextWindow?: number;
  /** The model cannot call tools, so it answered in one shot from the pages retrieval found. */
  oneShot?: boolean;
  /** Models of the fallback chain that failed (or had no key) before one answered. */
  attempts?: ModelAttempt[];
}

/** One tool call of a turn, as the chat shows it and the store keeps it. */
export interface ToolStep {
  tool: string;
  input: unknown;
  /** `Searched the wiki for "retry"`, `Read src/a.ts:Foo`. */
  label: string;
  ok: boolean;
  /** One line: `4 pages`, `lines 10–42`, `refused: outside the workspace`. */
  summary: string;
  /** What the model read, capped for storage. */
  output: string;
}

export interface Turn {
  conversationId: string;
  /** 0-based position in the conversation. */
  index: number;
  question: string;
  answer: string;
  context: TurnContext;
  /** Model name, or "offline". */
  model: string;
  inputTokens: number;
  outputTokens: number;
  created: string;
  /** The tools the model called for this answer, in order. */
  steps?: ToolStep[];
  /** Which answer to this question it is when Retry made others (0-based; absent: the first). */
  sibling?: number;
  /** How many answers the question has (absent: one); the conversation shows one of them. */
  siblingCount?: number;
}

export interface SearchHit {
  conversationId: string;
  conversationTitle: string;
  turnIndex: number;
  /** A short excerpt around the match, plain text. */
  snippet: string;
  /** Set when the conversation matched by its tags (then `turnIndex` is 0). */
  tags?: string[];
}

/** Everything about one conversation, enough to restore it after a delete. */
export interface ConversationRecord {
  conversation: Conversation;
  /** The turns as the conversation goes on from them: at each index, the answer shown. */
  turns: Turn[];
  /** The other answers Retry made (each with its `index` and `sibling`). */
  siblings?: Turn[];
}

/**
 * Persistent conversations. `appendTurn` resolves only once the turn is durable on disk, so the UI
 * may show it as saved. Implementations must survive a crash at any moment and a second window.
 */
export interface ConversationStore {
  /** Most recently updated first. */
  list(): Promise<Conversation[]>;
  get(id: string): Promise<ConversationRecord | undefined>;
  /** A new conversation; with `id`, under that id, refused (conversation-exists) when it is taken. */
  create(title: string, id?: string): Promise<Conversation>;
  appendTurn(turn: Omit<Turn, 'index'>): Promise<Turn>;
  /** Another answer to question `index` (Retry), kept beside the others and shown from now on. */
  appendSibling(turn: Omit<Turn, 'index'>, index: number): Promise<Turn>;
  /** Shows answer `sibling` of question `index`: the conversation goes on from it. */
  showSibling(id: string, index: number, sibling: number): Promise<void>;
  /** The user's title: it is never replaced by a proposed one (title source `user`). */
  rename(id: string, title: string): Promise<void>;
  /**
   * Replaces the title only while it is a placeholder (see PLACEHOLDER_TITLE_SOURCES), checked in
   * order with every other change, so a rename in another window always wins. True when it did.
   */
  proposeTitle(id: string, title: string, source: 'model' | 'question'): Promise<boolean>;
  /** Removes a conversation and returns it, so the caller can offer undo. */
  delete(id: string): Promise<ConversationRecord | undefined>;
  /** Puts back a deleted conversation exactly as it was (undo). */
  restore(record: ConversationRecord): Promise<void>;
  setFiledPage(id: string, slug: string): Promise<void>;
  /** Replaces the conversation's tags (normalised by the caller). */
  setTags(id: string, tags: readonly string[]): Promise<void>;
  setPriorSummary(id: string, summary: PriorTurnsSummary): Promise<void>;
  /**
   * Adds a conversation from an export, never overwriting: when its id is taken, it gets a new one.
   * Resolves with the conversation as stored.
   */
  importRecord(record: ConversationRecord): Promise<Conversation>;
  /** Adds a conversation under its own id (a fork); refused (conversation-exists) when that id is taken. */
  addRecord(record: ConversationRecord): Promise<Conversation>;
  /** Full-text search over questions, answers and tags, best first. */
  search(query: string, limit?: number): Promise<SearchHit[]>;
  close(): Promise<void>;
}

export const TITLE_MAX_CHARS = 80;
export const MAX_TAGS = 20;

/** Tags sorted and without duplicates, as a conversation keeps them. */
export function tagSet(tags: Iterable<string>): string[] {
  return [...new Set(tags)].sort();
}

/** A conversation's title from its first question: one line, truncated on a word boundary. */
export function titleFromQuestion(question: string): string {
  const line = question.replace(/\s+/g, ' ').trim();
  if (line.length <= TITLE_MAX_CHARS) return line || 'New conversation';
  const cut = line.slice(0, TITLE_MAX_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
