import * as assert from 'node:assert/strict';
import type { ConversationRecord, Turn } from '../../../../src/core/chat/conversation';
import { conversationToJson, conversationToMarkdown } from '../../../../src/core/chat/export';
import { fileBackConversation, fileBackTurns } from '../../../../src/core/chat/fileBack';
import { ImportError, parseConversationExport } from '../../../../src/core/chat/import';
import { forkRecord, isConversationId, newConversationId, parseTurnRange, partialSlug, requireConversationId } from '../../../../src/core/chat/lineage';
import { WikiError } from '../../../../src/core/errors';
import { Wiki } from '../../../../src/core/wiki/wiki';
import { fixedClock, MemoryConversationStore, MemoryFileSystem, pageText } from '../../../support/fakes';

const ROOT = '/ws';

function turn(index: number, tokens = 10): Turn {
  return {
    conversationId: 'parent', index, question: `Question ${index + 1}?`, answer: `Answer ${index + 1}, see [[error-handling]].`,
    context: { pages: [{ slug: 'error-handling', title: 'Errors', score: 1, stale: false }], offline: false },
    model: 'claude-test', inputTokens: tokens, outputTokens: tokens + 1, created: `2026-11-22T10:0${index}:00.000Z`,
  };
}

function parent(turns = 4): ConversationRecord {
  const all = Array.from({ length: turns }, (_, i) => turn(i, 10 * (i + 1)));
  return {
    conversation: {
      id: 'parent', title: 'How are errors handled?', created: '2026-11-22T10:00:00.000Z', updated: '2026-11-22T10:09:00.000Z', filedPage: 'how-are-errors-handled',
      turnCount: turns, inputTokens: all.reduce((s, t) => s + t.inputTokens, 0), outputTokens: all.reduce((s, t) => s + t.outputTokens, 0), tags: ['errors'],
      priorSummary: { text: 'Turns 1-2 were about errors.', turns: 2, model: 'claude-test', created: '2026-11-22T10:05:00.000Z' },
    },
    turns: all,
  };
}

function refusal(run: () => unknown, code: string): WikiError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof WikiError, String(error));
    assert.equal(error.code, code);
    return error;
  }
  return assert.fail(`expected a ${code} refusal`);
}

describe('conversation ids', () => {
  it('accepts 1 to 64 letters, digits, "-" and "_", and refuses anything else with what an id may be', () => {
    for (const id of ['pr-42', 'a', 'A_b-9', 'x'.repeat(64), 'c0ffee00-1234-4abc-8def-000000000000']) assert.equal(requireConversationId(id), id);
    for (const id of ['', 'x'.repeat(65), 'has space', '../etc', 'a/b', 'é', 'a.b', '-\n']) {
      assert.equal(isConversationId(id), false, id);
      assert.match(refusal(() => requireConversationId(id), 'invalid-conversation-id').userMessage, /is not a conversation id\. Use 1 to 64 letters, digits/);
    }
  });

  it('a new terminal conversation is conv- and 8 hex digits, different each time', () => {
    const ids = new Set(Array.from({ length: 50 }, newConversationId));
    assert.equal(ids.size, 50);
    for (const id of ids) assert.match(id, /^conv-[0-9a-f]{8}$/);
  });
});

describe('forking a conversation', () => {
  it('holds turns 1..N renumbered under the new id, records the lineage, and totals only its own turns', () => {
    const fork = forkRecord(parent(), 3, 'child', '2026-11-23T08:00:00.000Z');
    assert.deepEqual(fork.turns.map((t) => [t.conversationId, t.index, t.question]), [['child', 0, 'Question 1?'], ['child', 1, 'Question 2?'], ['child', 2, 'Question 3?']]);
    assert.deepEqual(fork.turns[2], { ...parent().turns[2], conversationId: 'child' }, 'turns are copied whole');
    const c = fork.conversation;
    assert.equal(c.parentConversationId, 'parent');
    assert.equal(c.forkedAtTurn, 3);
    assert.equal(c.title, 'How are errors handled? (fork)');
    assert.deepEqual([c.turnCount, c.inputTokens, c.outputTokens], [3, 60, 63]);
    assert.deepEqual([c.created, c.updated], ['2026-11-23T08:00:00.000Z', '2026-11-23T08:00:00.000Z']);
    assert.deepEqual(c.tags, ['errors']);
    assert.equal(c.filedPage, undefined, 'the fork is not the parent\'s page');
    assert.equal(c.priorSummary?.turns, 2, 'a summary of turns the fork holds is kept');
  });

  it('drops the summary when it covers turns the fork does not hold; N is 1..turn count', () => {
    assert.equal(forkRecord(parent(), 1, 'child', '2026-11-23T08:00:00.000Z').conversation.priorSummary, undefined);
    assert.equal(forkRecord(parent(), 4, 'child', '2026-11-23T08:00:00.000Z').turns.length, 4);
    for (const at of [0, 5, -1, 1.5, Number.NaN]) assert.match(refusal(() => forkRecord(parent(), at, 'child', 'x'), 'invalid-turns').userMessage, /Give --at between 1 and 4/);
  });
});

describe('turn ranges', () => {
  it('reads N-M, N–M and N, 1-based and inclusive, within the conversation', () => {
    assert.deepEqual(parseTurnRange('2-4', 5), { from: 2, to: 4 });
    assert.deepEqual(parseTurnRange(' 2 – 3 ', 5), { from: 2, to: 3 });
    assert.deepEqual(parseTurnRange('5', 5), { from: 5, to: 5 });
    for (const text of ['0-2', '3-2', '2-6', 'a-b', '', '2-']) refusal(() => parseTurnRange(text, 5), 'invalid-turns');
  });

  it('a partial save\'s slug says which turns it holds, and stays within the slug length', () => {
    assert.equal(partialSlug('How are errors handled?', { from: 2, to: 4 }), 'how-are-errors-handled-turns-2-4');
    const long = partialSlug('word '.repeat(40), { from: 10, to: 12 });
    assert.ok(long.length <= 80 && long.endsWith('-turns-10-12'), long);
  });
});

describe('saving some turns to the wiki', () => {
  async function wiki() {
    const fs = new MemoryFileSystem();
    fs.write(`${ROOT}/.wiki/pages/error-handling.md`, pageText('Errors', 'Handlers throw.\n'));
    fs.write(`${ROOT}/.wiki/log.jsonl`, '');
    return { fs, wiki: new Wiki(ROOT, fs, fixedClock()) };
  }

  it('writes only those turns, and saving the same turns again updates the same page, even after a rename', async () => {
    const { fs, wiki: w } = await wiki();
    const record = parent();
    const first = await fileBackTurns(w, record, { from: 2, to: 3 }, '2026-11-22');
    assert.deepEqual([first.slug, first.created], ['how-are-errors-handled-turns-2-3', true]);
    const text = fs.text(`${ROOT}/.wiki/pages/${first.slug}.md`)!;
    assert.match(text, /## Question 2\?/);
    assert.match(text, /## Question 3\?/);
    assert.doesNotMatch(text, /Question 1\?|Question 4\?/);
    assert.match(text, /title: How are errors handled\? \(turns 2–3\)/);
    assert.match(text, /conversation:parent#turns-2-3/);

    const renamed = { ...record, conversation: { ...record.conversation, title: 'Renamed meanwhile' } };
    const again = await fileBackTurns(w, renamed, { from: 2, to: 3 }, '2026-11-23');
    assert.deepEqual([again.slug, again.created], [first.slug, false]);
    const other = await fileBackTurns(w, record, { from: 1, to: 1 }, '2026-11-23');
    assert.equal(other.slug, 'how-are-errors-handled-turns-1-1');
    assert.ok(other.created);
  });

  it('leaves the whole conversation\'s page and filed page alone', async () => {
    const { wiki: w } = await wiki();
    const store = new MemoryConversationStore();
    const record = parent();
    await store.restore(record);
    const whole = await fileBackConversation(w, store, { ...record, conversation: { ...record.conversation, filedPage: undefined } }, '2026-11-22');
    const part = await fileBackTurns(w, (await store.get('parent'))!, { from: 1, to: 2 }, '2026-11-22');
    assert.notEqual(part.slug, whole.slug);
    assert.equal((await store.get('parent'))!.conversation.filedPage, whole.slug);
  });
});

describe('export format 3', () => {
  it('carries a fork\'s lineage through JSON and Markdown, and reads it back', () => {
    const fork = forkRecord(parent(), 2, 'child', '2026-11-23T08:00:00.000Z');
    const json = JSON.parse(conversationToJson(fork));
    assert.equal(json.version, 3);
    assert.equal(json.conversation.parentConversationId, 'parent');
    assert.equal(json.conversation.forkedAtTurn, 2);
    assert.deepEqual(parseConversationExport(conversationToJson(fork)), fork);
    assert.deepEqual(parseConversationExport(conversationToMarkdown(fork)), fork);
  });

  it('still reads formats 2 and 1, which have no lineage', () => {
    const record = parent(2);
    const v2 = { ...JSON.parse(conversationToJson(record)), version: 2 };
    assert.deepEqual(parseConversationExport(JSON.stringify(v2)), record);
    const { tags: _tags, priorSummary: _summary, ...v1Conversation } = v2.conversation;
    const v1 = parseConversationExport(JSON.stringify({ ...v2, version: 1, conversation: v1Conversation }));
    assert.equal(v1.conversation.parentConversationId, undefined);
    assert.equal(v1.turns.length, 2);
    const markdownV2 = conversationToMarkdown(record).replace(/<!-- repo-wiki-conversation v3/, '<!-- repo-wiki-conversation v2');
    assert.deepEqual(parseConversationExport(markdownV2), record);
  });

  it('carries the answers Retry made (siblings) and which one each turn shows, in JSON and Markdown, and refuses a gap', () => {
    const record = parent(2);
    const first = { ...turn(1), answer: 'The first answer.' };
    record.turns[1] = { ...turn(1), answer: 'The second answer.', sibling: 1, siblingCount: 2, inputTokens: 5 };
    record.siblings = [first];
    record.conversation.inputTokens = record.turns.concat(first).reduce((sum, t) => sum + t.inputTokens, 0);
    record.conversation.outputTokens = record.turns.concat(first).reduce((sum, t) => sum + t.outputTokens, 0);
    const json = JSON.parse(conversationToJson(record));
    assert.deepEqual(json.siblings.map((t: Turn) => [t.index, t.sibling ?? 0, t.answer]), [[1, 0, 'The first answer.']]);
    assert.equal(json.turns[1].siblingCount, undefined, 'the count follows from the siblings');
    assert.deepEqual(parseConversationExport(conversationToJson(record)), record);
    const markdown = conversationToMarkdown(record);
    assert.match(markdown, /The second answer\.\n\n_Answer 2 of 2; the others are in the record below\._/);
    assert.deepEqual(parseConversationExport(markdown), record);
    const gap = { ...json, siblings: [{ ...json.siblings[0], sibling: 3 }] };
    assert.throws(() => parseConversationExport(JSON.stringify(gap)), /the answers to turns\[1\] are numbered 1, 3 \(expected 0 to 1, each once\)/);
    const outside = { ...json, siblings: [{ ...json.siblings[0], index: 7 }] };
    assert.throws(() => parseConversationExport(JSON.stringify(outside)), /siblings\[0\]\.index is not a question index \(below 2\)/);
  });

  it('refuses half a lineage, a bad parent id, and a newer format', () => {
    const json = JSON.parse(conversationToJson(forkRecord(parent(), 2, 'child', '2026-11-23T08:00:00.000Z')));
    const without = (key: string) => ({ ...json, conversation: { ...json.conversation, [key]: undefined } });
    assert.throws(() => parseConversationExport(JSON.stringify(without('forkedAtTurn'))), (e: unknown) => e instanceof ImportError && /only one of parentConversationId and forkedAtTurn/.test(e.message));
    assert.throws(() => parseConversationExport(JSON.stringify({ ...json, conversation: { ...json.conversation, parentConversationId: '../x' } })), /conversation\.parentConversationId is not a conversation id/);
    assert.throws(() => parseConversationExport(JSON.stringify({ ...json, conversation: { ...json.conversation, forkedAtTurn: -1 } })), /conversation\.forkedAtTurn is not a number of turns/);
    assert.throws(() => parseConversationExport(JSON.stringify({ ...json, version: 4 })), /newer version of Repo Wiki \(format version 4; this one reads up to 3\)/);
  });
});
