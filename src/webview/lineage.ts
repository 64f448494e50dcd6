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
 * Each conversation's family root: its oldest ancestor the list knows of, or the id of a deleted
 * one, so forks of one original share it even when that original was deleted. One pass with memo;
 * a cycle of parents (only from hand-edited data) stops the walk.
 */
export function familyRoots(items: readonly ConversationSummary[]): Map<string, string> {
  const parents = new Map(items.map((item) => [item.id, item.parentConversationId]));
  const roots = new Map<string, string>();
  for (const item of items) {
    const path = new Set<string>();
    let current = item.id;
    while (!roots.has(current) && !path.has(current)) {
      path.add(current);
      const parent = parents.get(current);
      if (typeof parent !== 'string') break;
      current = parent;
    }
    const root = roots.get(current) ?? current;
    for (const id of path) roots.set(id, root);
  }
  return roots;
}
