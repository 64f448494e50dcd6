import type { Conversation, ConversationStore } from './conversation';

export interface RetentionPolicy {
  /** Conversations not updated for this many days go; 0 or less keeps everything. */
  olderThanDays: number;
  /** Also delete conversations that were saved to the wiki (kept by default). */
  includeFiled: boolean;
}

export interface RetentionSelection {
  /** What the policy deletes, oldest first. */
  expired: Conversation[];
  /** Old enough, but kept because they were saved to the wiki (empty when `includeFiled`). */
  keptFiled: Conversation[];
}

const DAY_MS = 86_400_000;

/** The conversations a retention policy deletes now, and the filed ones it keeps. */
export function selectExpired(conversations: readonly Conversation[], policy: RetentionPolicy, now: Date): RetentionSelection {
  if (!(policy.olderThanDays > 0)) return { expired: [], keptFiled: [] };
  const cutoff = now.getTime() - policy.olderThanDays * DAY_MS;
  const old = conversations.filter((c) => Date.parse(c.updated) < cutoff).sort((a, b) => a.updated.localeCompare(b.updated));
  return {
    expired: old.filter((c) => policy.includeFiled || !c.filedPage),
    keptFiled: policy.includeFiled ? [] : old.filter((c) => !!c.filedPage),
  };
}

/**
 * Deletes the selected conversations, each one only if it was not updated since it was selected
 * (a turn added meanwhile, maybe in another window, keeps it). Returns the ones deleted.
 */
export async function deleteExpired(store: ConversationStore, expired: readonly Conversation[]): Promise<Conversation[]> {
  const deleted: Conversation[] = [];
  for (const selected of expired) {
    const current = await store.get(selected.id);
    if (!current || current.conversation.updated !== selected.updated) continue;
    if (await store.delete(selected.id)) deleted.push(selected);
  }
  return deleted;
}
