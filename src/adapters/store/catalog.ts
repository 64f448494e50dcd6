import { WikiError } from '../../core/errors';
import { isTitleSource, PLACEHOLDER_TITLE_SOURCES, titleFromQuestion, type Conversation, type ConversationRecord, type PriorTurnsSummary, type SearchHit, type Turn } from '../../core/chat/conversation';
import type { JournalEntry } from './journal';

/**
 * The catalog (catalog.json): every conversation with its running totals, and the journal entry of
 * each of its turns. It is all the history list needs, kept as plain JSON so listing 10,000
 * conversations needs no SQLite at all; turns live in shards (turnShard.ts) loaded on demand.
 * Applying a journal entry here decides what it means (whether a turn is kept, and at which index),
 * and returns what its shard must do.
 */

/** Bumped when the file's meaning changes; an older build refuses a newer file instead of misreading it. */
export const CATALOG_FORMAT = 1;

/** What a journal entry does to the turns of one conversation, decided by the catalog. */
export type ShardEffect =
  | { kind: 'turn'; turn: Turn; entryId: string }
  | { kind: 'remove'; conversationId: string }
  | { kind: 'put'; conversationId: string; turns: Turn[] };

/** Further answers to one question (Retry): the journal entry of each ('' if restored from a record), and the one shown. */
export interface Retried {
  /** Answers 1..n-1; answer 0 is the turn's own entry. */
  entries: string[];
  shown: number;
}

/** A conversation as the catalog keeps it: `entries[i]` is the journal entry that added turn i ('' if restored from a record). */
interface Entry extends Conversation {
  entries: string[];
  /** By question index, when Retry answered it again. */
  retried?: Record<string, Retried>;
}

interface CatalogFile {
  format: number;
  foldedSegment?: number;
  conversations: Entry[];
}

/** Totals of a conversation's turns, as its shard holds them. */
export interface TurnTotals {
  conversationId: string;
  turnCount: number;
  inputTokens: number;
  outputTokens: number;
  /** The journal entry of each turn, by index ('' when it came from a record). */
  entries: string[];
  retried?: Record<string, Retried>;
  firstQuestion: string;
  firstCreated: string;
}

export class Catalog {
  private readonly conversations = new Map<string, Entry>();
  /** Journal entry → the turn it added; built when first needed (applying or acknowledging a turn), never just to list. */
  private byEntry?: Map<string, { conversationId: string; index: number; sibling: number }>;
  private folded?: number;
  /**
   * After a salvage, a journal turn may belong to a conversation whose entry was lost with the
   * damaged file: it gets a conversation of its own instead of being dropped as deleted.
   */
  private adoptOrphanTurns = false;

  /** Reads catalog.json (undefined: a new catalog). Throws a WikiError for a newer build's file, any other error for a damaged one. */
  static parse(text: string | undefined, file: string): Catalog {
    const catalog = new Catalog();
    if (text === undefined) return catalog;
    const value = JSON.parse(text) as Partial<CatalogFile> | null;
    if (typeof value?.format !== 'number' || !Array.isArray(value.conversations)) throw new Error('not a conversation catalog');
    if (value.format > CATALOG_FORMAT) {
      throw new WikiError('newer-database', `The chat history catalog ${file} was written by a newer version of Repo Wiki (format ${value.format}; this version knows up to ${CATALOG_FORMAT}).`, 'Update the Repo Wiki extension to open it. The file was left untouched.');
    }
    for (const entry of value.conversations) catalog.put(checkedEntry(entry));
    if (typeof value.foldedSegment === 'number') catalog.folded = value.foldedSegment;
    return catalog;
  }

  /** Journal segments up to this one are folded in; undefined when unknown (a new or salvaged catalog). */
  foldedSegment(): number | undefined {
    return this.folded;
  }

  setFoldedSegment(segment: number): void {
    this.folded = segment;
  }

  /**
   * Applies entries in journal order. Returns the shard effects of those applied, in order, and the
   * entries that could not be applied (each checked before it changes anything, so skipped whole).
   */
  apply(entries: readonly JournalEntry[]): { effects: { entry: JournalEntry; effect: ShardEffect }[]; failed: { entry: JournalEntry; error: unknown }[] } {
    const effects: { entry: JournalEntry; effect: ShardEffect }[] = [];
    const failed: { entry: JournalEntry; error: unknown }[] = [];
    for (const entry of entries) {
      try {
        const effect = this.applyOne(entry);
        if (effect) effects.push({ entry, effect });
      } catch (error) {
        failed.push({ entry, error });
      }
    }
    return { effects, failed };
  }

  /** Each change is idempotent: the same entry may be replayed (see JournalWriter.append). */
  private applyOne(entry: JournalEntry): ShardEffect | undefined {
    switch (entry.op) {
      case 'create': {
        const { id, title, created } = entry.conversation;
        if (!this.conversations.has(id)) this.put({ id: text(id), title: text(title), created: text(created), updated: created, turnCount: 0, inputTokens: 0, outputTokens: 0, tags: [], titleSource: 'question', entries: [] });
        return undefined;
      }
      case 'turn':
        return this.addTurn(entry.id, entry.turn);
      case 'sibling':
        return this.addSibling(entry.id, entry.turn, entry.index);
      case 'show': {
        const current = this.conversations.get(entry.conversationId);
        const retried = current?.retried?.[entry.index];
        if (!retried || !Number.isInteger(entry.sibling) || entry.sibling < 0 || entry.sibling > retried.entries.length) throw new Error(`question ${entry.index} has no answer ${entry.sibling}`);
        this.update(entry.conversationId, { retried: { ...current!.retried, [entry.index]: { ...retried, shown: entry.sibling } } });
        return undefined;
      }
      case 'rename':
        this.update(entry.conversationId, { title: text(entry.title), titleSource: 'user' });
        return undefined;
      case 'title': {
        const current = this.conversations.get(entry.conversationId);
        if (current?.titleSource && PLACEHOLDER_TITLE_SOURCES.includes(current.titleSource)) this.update(entry.conversationId, { title: text(entry.title), titleSource: entry.source });
        return undefined;
      }
      case 'filed':
        this.update(entry.conversationId, { filedPage: text(entry.slug) });
        return undefined;
      case 'tags':
        this.update(entry.conversationId, { tags: entry.tags.map(text) });
        return undefined;
      case 'summary':
        this.update(entry.conversationId, { priorSummary: entry.summary });
        return undefined;
      case 'delete':
        this.remove(entry.conversationId);
        return { kind: 'remove', conversationId: entry.conversationId };
      case 'restore':
        return this.putRecord(entry.record);
    }
  }

  private addTurn(entryId: string, turn: Omit<Turn, 'index'>): ShardEffect | undefined {
    if (this.turnsByEntry().has(entryId)) return undefined;
    let conversation = this.conversations.get(turn.conversationId);
    if (!conversation) {
      // Deleted meanwhile in another window: the turn is dropped, and appendTurn says so. After a
      // salvage, though, the conversation's entry may have been lost with the damaged file.
      if (!this.adoptOrphanTurns) return undefined;
      conversation = this.put({ id: text(turn.conversationId), title: titleFromQuestion(text(turn.question)), created: text(turn.created), updated: turn.created, turnCount: 0, inputTokens: 0, outputTokens: 0, tags: [], entries: [] });
    }
    const index = conversation.turnCount;
    const updated = turn.created > conversation.updated ? text(turn.created) : conversation.updated;
    this.update(conversation.id, { updated, turnCount: index + 1, inputTokens: conversation.inputTokens + count(turn.inputTokens), outputTokens: conversation.outputTokens + count(turn.outputTokens), entries: [...conversation.entries, entryId] });
    return { kind: 'turn', turn: { ...turn, index }, entryId };
  }

  private addSibling(entryId: string, turn: Omit<Turn, 'index'>, index: number): ShardEffect | undefined {
    if (this.turnsByEntry().has(entryId)) return undefined;
    const conversation = this.conversations.get(turn.conversationId);
    if (!conversation) return undefined; // deleted meanwhile in another window, as for a turn
    if (!Number.isInteger(index) || index < 0 || index >= conversation.turnCount) throw new Error(`there is no question ${index} to answer again`);
    const before = conversation.retried?.[index]?.entries ?? [];
    const sibling = before.length + 1;
    const updated = turn.created > conversation.updated ? text(turn.created) : conversation.updated;
    this.update(conversation.id, {
      updated, inputTokens: conversation.inputTokens + count(turn.inputTokens), outputTokens: conversation.outputTokens + count(turn.outputTokens),
      retried: { ...conversation.retried, [index]: { entries: [...before, entryId], shown: sibling } },
    });
    return { kind: 'turn', turn: { ...turn, index, sibling }, entryId };
  }

  private remove(conversationId: string): void {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return;
    for (const entryId of entryIds(conversation)) this.byEntry?.delete(entryId);
    this.conversations.delete(conversationId);
  }

  /** Puts a conversation back exactly as recorded, replacing any current version. */
  private putRecord({ conversation, turns, siblings = [] }: ConversationRecord): ShardEffect {
    const shown = turns.map((turn, index) => ({ ...turn, index }));
    const answers = [...shown, ...siblings];
    const checked = checkedEntry({
      ...conversation, turnCount: turns.length, inputTokens: sum(answers, 'inputTokens'), outputTokens: sum(answers, 'outputTokens'), entries: turns.map(() => ''),
      retried: retriedOf(answers.map((turn) => ({ index: turn.index, sibling: turn.sibling ?? 0, entryId: '' })), new Map(shown.map((turn) => [turn.index, turn.sibling ?? 0]))),
    });
    this.remove(checked.id);
    this.put(checked);
    return { kind: 'put', conversationId: checked.id, turns: answers.map(({ siblingCount: _count, ...turn }) => ({ ...turn, conversationId: checked.id })) };
  }

  /**
   * Adds conversations read from an older or damaged store, and the totals of the turns the shards
   * hold; those are the truth for turn counts. A conversation whose entry was lost gets one titled after its first question.
   */
  adopt(conversations: readonly Conversation[], totals: readonly TurnTotals[], orphanTurnsToo: boolean): void {
    this.adoptOrphanTurns ||= orphanTurnsToo;
    for (const conversation of conversations) {
      if (this.conversations.has(conversation.id)) continue;
      try {
        this.put(checkedEntry({ ...conversation, turnCount: 0, inputTokens: 0, outputTokens: 0, entries: [] }));
      } catch {
        // A damaged row is left out, not the whole salvage.
      }
    }
    for (const total of totals) {
      if (!this.conversations.has(total.conversationId)) {
        this.put({ id: total.conversationId, title: titleFromQuestion(total.firstQuestion), created: total.firstCreated, updated: total.firstCreated, turnCount: 0, inputTokens: 0, outputTokens: 0, tags: [], entries: [] });
      }
      this.setTotals(total);
    }
  }

  /** Sets a conversation's totals and turn entries to what its shard holds. */
  setTotals(total: TurnTotals): void {
    const conversation = this.conversations.get(total.conversationId);
    if (!conversation) return;
    for (const entryId of entryIds(conversation)) this.byEntry?.delete(entryId);
    this.update(total.conversationId, { turnCount: total.turnCount, inputTokens: total.inputTokens, outputTokens: total.outputTokens, entries: total.entries, retried: total.retried });
  }

  conversation(id: string): Conversation | undefined {
    const entry = this.conversations.get(id);
    return entry && toConversation(entry);
  }

  /** Most recently updated first. */
  list(): Conversation[] {
    return [...this.conversations.values()]
      .sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map(toConversation);
  }

  ids(): string[] {
    return [...this.conversations.keys()];
  }

  /** The question and answer a journal entry added, if it was kept. */
  turnOf(entryId: string): { index: number; sibling: number } | undefined {
    return this.turnsByEntry().get(entryId);
  }

  /** For each question Retry answered again: how many answers it has, and which is shown. */
  answers(id: string): Map<number, { count: number; shown: number }> {
    const retried = this.conversations.get(id)?.retried ?? {};
    return new Map(Object.entries(retried).map(([index, { entries, shown }]) => [Number(index), { count: entries.length + 1, shown }]));
  }

  private turnsByEntry(): Map<string, { conversationId: string; index: number; sibling: number }> {
    if (!this.byEntry) {
      this.byEntry = new Map();
      for (const entry of this.conversations.values()) this.index(entry);
    }
    return this.byEntry;
  }

  private index(entry: Entry): void {
    entry.entries.forEach((entryId, index) => {
      if (entryId) this.byEntry!.set(entryId, { conversationId: entry.id, index, sibling: 0 });
    });
    for (const [index, { entries }] of Object.entries(entry.retried ?? {})) {
      entries.forEach((entryId, i) => {
        if (entryId) this.byEntry!.set(entryId, { conversationId: entry.id, index: Number(index), sibling: i + 1 });
      });
    }
  }

  /** Conversations whose tags match every term (a term matches a tag it starts), most recent first. */
  searchTags(terms: readonly string[], limit: number): SearchHit[] {
    if (limit <= 0) return [];
    return this.list()
      .filter(({ tags }) => tags.length && terms.every((term) => tags.some((tag) => tag.startsWith(term))))
      .slice(0, limit)
      .map(({ id, title, tags }) => ({ conversationId: id, conversationTitle: title, turnIndex: 0, snippet: `Tagged ${tags.join(', ')}`, tags }));
  }

  export(): Uint8Array {
    const file: CatalogFile = { format: CATALOG_FORMAT, ...(this.folded === undefined ? {} : { foldedSegment: this.folded }), conversations: [...this.conversations.values()] };
    return Buffer.from(JSON.stringify(file), 'utf8');
  }

  private put(entry: Entry): Entry {
    this.conversations.set(entry.id, entry);
    if (this.byEntry) this.index(entry);
    return entry;
  }

  private update(id: string, changes: Partial<Entry>): void {
    const current = this.conversations.get(id);
    if (!current) return;
    this.put({ ...current, ...changes });
  }
}

const sum = (turns: readonly Pick<Turn, 'inputTokens' | 'outputTokens'>[], key: 'inputTokens' | 'outputTokens'): number => turns.reduce((total, turn) => total + count(turn[key]), 0);

function text(value: unknown): string {
  if (typeof value !== 'string') throw new Error(`expected text, found ${typeof value}`);
  return value;
}

function count(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`expected a number, found ${String(value)}`);
  return value;
}

/** An entry read from the file or a record, checked field by field: the file is data, never trusted. */
function checkedEntry(value: Partial<Entry>): Entry {
  const entry: Entry = {
    id: text(value.id), title: text(value.title), created: text(value.created), updated: text(value.updated ?? value.created),
    turnCount: count(value.turnCount ?? 0), inputTokens: count(value.inputTokens ?? 0), outputTokens: count(value.outputTokens ?? 0),
    tags: texts(value.tags), entries: texts(value.entries),
  };
  if (value.filedPage !== undefined && value.filedPage !== null) entry.filedPage = text(value.filedPage);
  const summary = value.priorSummary as Partial<PriorTurnsSummary> | undefined | null;
  if (summary) entry.priorSummary = { text: text(summary.text), turns: count(summary.turns), model: text(summary.model), created: text(summary.created) };
  if (value.parentConversationId) {
    entry.parentConversationId = text(value.parentConversationId);
    entry.forkedAtTurn = count(value.forkedAtTurn);
  }
  if (isTitleSource(value.titleSource)) entry.titleSource = value.titleSource;
  if (value.retried) entry.retried = checkedRetried(value.retried, entry.turnCount);
  return entry;
}

function checkedRetried(value: unknown, turnCount: number): Record<string, Retried> {
  if (typeof value !== 'object' || value === null) throw new Error('expected answers by question');
  const retried: Record<string, Retried> = {};
  for (const [index, answers] of Object.entries(value as Record<string, Partial<Retried>>)) {
    const entries = texts(answers.entries);
    const shown = count(answers.shown);
    if (!(Number(index) < turnCount) || shown > entries.length) throw new Error(`answers of question ${index} do not fit the conversation`);
    retried[index] = { entries, shown };
  }
  return retried;
}

/** Further answers by question, from every answer's index, sibling and entry, and the answer shown at each index. */
export function retriedOf(answers: readonly { index: number; sibling: number; entryId: string }[], shown: ReadonlyMap<number, number>): Record<string, Retried> | undefined {
  const retried: Record<string, Retried> = {};
  for (const { index, sibling, entryId } of answers) {
    if (sibling === 0) continue;
    const at = (retried[index] ??= { entries: [], shown: shown.get(index) ?? 0 });
    at.entries[sibling - 1] = entryId;
  }
  for (const at of Object.values(retried)) at.entries = Array.from(at.entries, (entryId) => entryId ?? '');
  return Object.keys(retried).length ? retried : undefined;
}

/** Every journal entry a conversation's answers came from. */
function entryIds(entry: Entry): string[] {
  return [...entry.entries, ...Object.values(entry.retried ?? {}).flatMap(({ entries }) => entries)].filter(Boolean);
}

/** A list of text, as it is (no copy) when it is one; absent reads as empty. */
function texts(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new Error('expected a list of text');
  return value as string[];
}

function toConversation({ entries: _entries, retried: _retried, ...conversation }: Entry): Conversation {
  return { ...conversation, tags: [...conversation.tags] };
}
