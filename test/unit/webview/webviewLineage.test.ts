import * as assert from 'node:assert/strict';
import type { ConversationSummary } from '../../../src/shared/protocol';
import { familyRoots, lineageText } from '../../../src/webview/lineage';

const item = (id: string, title: string, parent?: string, at?: number): ConversationSummary => ({
  id, title, updated: '2026-11-22T10:00:00.000Z', turnCount: 3, ...(parent ? { parentConversationId: parent, forkedAtTurn: at } : {}),
});

describe('webview: forks in the history', () => {
  const items = [
    item('auth', 'Auth flow'),
    item('fork-a', 'Token refresh', 'auth', 3),
    item('fork-b', 'Sessions', 'fork-a', 1),
    item('edit-first', 'Login', 'auth', 0),
    item('orphan-1', 'Orphan one', 'gone', 2),
    item('orphan-2', 'Orphan two', 'gone', 1),
    item('other', 'Routing'),
  ];

  it('says which conversation a fork came from, and at which turn', () => {
    assert.equal(lineageText(items[1], items), 'forked from “Auth flow” at turn 3');
    assert.equal(lineageText(items[3], items), 'forked from “Auth flow” at its start');
    assert.equal(lineageText(items[4], items), 'forked from a deleted conversation at turn 2');
    assert.equal(lineageText(items[0], items), undefined);
  });

  it('a family is an original with its forks and their forks, even when the original was deleted', () => {
    const roots = familyRoots(items);
    const family = (id: string) => items.filter((other) => roots.get(other.id) === roots.get(id)).map((other) => other.id);
    assert.deepEqual(family('fork-b'), ['auth', 'fork-a', 'fork-b', 'edit-first']);
    assert.deepEqual(family('orphan-2'), ['orphan-1', 'orphan-2']);
    assert.deepEqual(family('other'), ['other']);
  });

  it('stops on a cycle of parents (hand-edited data) instead of looping', () => {
    const cycle = [item('a', 'A', 'b', 1), item('b', 'B', 'a', 1), item('c', 'C', 'a', 1)];
    const roots = familyRoots(cycle);
    assert.equal(new Set(roots.values()).size, 1, 'one family');
  });

  it('finds every root in one pass over a long chain', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => item(`c${i}`, `C${i}`, i ? `c${i - 1}` : undefined, 1)).reverse();
    const started = Date.now();
    const roots = familyRoots(chain);
    assert.ok(Date.now() - started < 1000);
    assert.equal(roots.get('c4999'), 'c0');
  });
});
