/** Forks as the history shows them: a fork's lineage line, and the family a conversation belongs to. */
import type { ConversationSummary } from '../shared/protocol';
import { clip } from './format';

/** "forked from “Auth flow” at turn 3" for a fork (its parent by title while it is listed), else undefined. */
export function lineageText(item: ConversationSummary, items: readonly ConversationSummary[]): string | undefined {
  if (typeof item.parentConversationId !== 'string') return undefined;
  const parent = items.find((other) => other.id === item.parentConversationId);
  const from = parent ? `“${clip(String(parent.title), 60)}”` : 'a deleted conversation';
  const at = Number(item.forkedAtTurn) > 0 ? `at turn ${Number(item.forkedAtTurn)}` : 'at its start';
  return `forked from ${from} ${at}`;
}

/**
 * The oldest ancestor of `id` the list knows of, or the id of a deleted one: forks of one original
 * share it even when that original was deleted. A cycle (only from hand-edited data) stops the walk.
 */
export function familyRoot(id: string, items: readonly ConversationSummary[]): string {
  const parents = new Map(items.map((item) => [item.id, item.parentConversationId]));
  const seen = new Set<string>();
  let current = id;
  while (!seen.has(current)) {
    seen.add(current);
    const parent = parents.get(current);
    if (typeof parent !== 'string') return current;
    current = parent;
  }
  return current;
}
