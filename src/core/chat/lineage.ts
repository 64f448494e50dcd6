import { randomBytes } from 'node:crypto';
import { WikiError } from '../errors';
import { slugify } from '../pages/slug';
import type { ConversationRecord } from './conversation';

/**
 * Conversation ids, forks and turn ranges: what the terminal's `--conversation`, `conversations fork`
 * and `conversations save --turns` mean, kept here so every front end means the same.
 */

/** What a conversation id may be: the store's UUIDs, `conv-<8 hex>`, and names a user types (`pr-42`). */
export const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

export const isConversationId = (id: string): boolean => CONVERSATION_ID.test(id);

/** `id`, or a refusal that says what an id may be. */
export function requireConversationId(id: string): string {
  if (isConversationId(id)) return id;
  const shown = JSON.stringify(id.length > 70 ? `${id.slice(0, 70)}…` : id);
  throw new WikiError('invalid-conversation-id', `${shown} is not a conversation id.`, 'Use 1 to 64 letters, digits, "-" or "_", for example pr-42.');
}

/** A new id for a conversation started from the terminal: `conv-` and 8 random hex digits. */
export const newConversationId = (): string => `conv-${randomBytes(4).toString('hex')}`;

/** Turns `from`..`to` of a conversation, 1-based and inclusive, as a person counts them. */
export interface TurnRange {
  from: number;
  to: number;
}

/** `2-4`, `3` (one turn) or `2–4`; a refusal names what is wrong. `turnCount` bounds it. */
export function parseTurnRange(text: string, turnCount: number): TurnRange {
  const match = /^\s*(\d+)\s*(?:[-–]\s*(\d+)\s*)?$/.exec(text);
  const hint = turnCount ? `Give turns as N or N-M, between 1 and ${turnCount}.` : 'This conversation has no turns yet.';
  if (!match) throw new WikiError('invalid-turns', `"${text}" is not a range of turns.`, hint);
  const from = Number(match[1]);
  const to = Number(match[2] ?? match[1]);
  if (from < 1 || to < from || to > turnCount) throw new WikiError('invalid-turns', `Turns ${from}-${to} are not in this conversation (it has ${turnCount} turn${turnCount === 1 ? '' : 's'}).`, hint);
  return { from, to };
}

/**
 * The fork of `parent` at turn `atTurn` (1-based): a new conversation `id` holding turns 1..atTurn,
 * its lineage recorded, titled after the parent until its first answer. It keeps the parent's tags, and its summary of
 * earlier turns when that covers only turns the fork has; not its filed page (the fork is its own).
 */
export function forkRecord(parent: ConversationRecord, atTurn: number, id: string, now: string): ConversationRecord {
  const count = parent.turns.length;
  if (!Number.isInteger(atTurn) || atTurn < 1 || atTurn > count) {
    throw new WikiError('invalid-turns', `Cannot fork ${parent.conversation.id} at turn ${atTurn}: it has ${count} turn${count === 1 ? '' : 's'}.`, count ? `Give --at between 1 and ${count}.` : 'Ask a question in it first.');
  }
  return forkKeeping(parent, atTurn, id, now);
}

/**
 * The fork an edit of question `turnIndex` (0-based) starts: the turns before it, so the edited
 * question becomes the fork's next turn. Editing the first question forks with no turns (at turn 0).
 */
export function forkForEdit(parent: ConversationRecord, turnIndex: number, id: string, now: string): ConversationRecord {
  const count = parent.turns.length;
  if (!Number.isInteger(turnIndex) || turnIndex < 0 || turnIndex >= count) {
    throw new WikiError('invalid-turns', `Cannot edit question ${turnIndex + 1} of ${parent.conversation.id}: it has ${count} turn${count === 1 ? '' : 's'}.`, 'Open the conversation again and edit one of its questions.');
  }
  return forkKeeping(parent, turnIndex, id, now);
}

function forkKeeping(parent: ConversationRecord, kept: number, id: string, now: string): ConversationRecord {
  // A fork goes on from the answers shown; the other answers Retry made stay with the parent.
  const turns = parent.turns.slice(0, kept).map(({ sibling: _sibling, siblingCount: _count, ...turn }, index) => ({ ...turn, conversationId: id, index }));
  const { priorSummary, tags, title } = parent.conversation;
  return {
    conversation: {
      // A placeholder: the fork's first answer proposes a title of its own.
      id, title: `${title} (fork)`, titleSource: 'fork', created: now, updated: now,
      turnCount: turns.length,
      inputTokens: turns.reduce((sum, turn) => sum + turn.inputTokens, 0),
      outputTokens: turns.reduce((sum, turn) => sum + turn.outputTokens, 0),
      tags: [...tags],
      ...(priorSummary && priorSummary.turns <= kept ? { priorSummary } : {}),
      parentConversationId: parent.conversation.id,
      forkedAtTurn: kept,
    },
    turns,
  };
}

/**
 * The range of turns the chat view's checked turns are (0-based indexes, as the view counts them),
 * or a refusal that says what may be saved: one run of turns of this conversation.
 */
export function rangeOfTurnIndexes(indexes: readonly number[], turnCount: number): TurnRange {
  const consecutive = indexes.length > 0 && indexes.every((index, i) => Number.isInteger(index) && (i === 0 || index === indexes[i - 1] + 1));
  if (!consecutive) throw new WikiError('invalid-turns', 'The selected turns are not one run of turns.', 'Select turns next to each other (for example 2, 3 and 4): a page holds one run of a conversation.');
  return parseTurnRange(`${indexes[0] + 1}-${indexes.at(-1)! + 1}`, turnCount);
}

/**
 * The part of a conversation that `conversations save --turns` files back: only those turns, titled
 * with their range, without the whole conversation's filed page (that page is the whole one's).
 */
export function partialRecord(record: ConversationRecord, range: TurnRange): ConversationRecord {
  const turns = record.turns.slice(range.from - 1, range.to);
  const { filedPage: _wholePage, ...conversation } = record.conversation;
  return { conversation: { ...conversation, title: `${conversation.title} (${rangeLabel(range)})`, turnCount: turns.length }, turns };
}

/** The `sources` entry of a partial save: finding it again is what keeps its page's slug stable. */
export const partialSource = (conversationId: string, range: TurnRange): string => `conversation:${conversationId}#turns-${range.from}-${range.to}`;

/** The slug a partial save starts from (the same turns of the same conversation always ask for the same one). */
export function partialSlug(title: string, range: TurnRange): string {
  const suffix = `-turns-${range.from}-${range.to}`;
  return `${(slugify(title) || 'conversation').slice(0, 80 - suffix.length).replace(/-+$/, '')}${suffix}`;
}

const rangeLabel = (range: TurnRange): string => (range.from === range.to ? `turn ${range.from}` : `turns ${range.from}–${range.to}`);
