import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConversationRecord } from '../../../src/core/chat/conversation';
import { conversationToJson, conversationToMarkdown } from '../../../src/core/chat/export';
import type { HostToWebview } from '../../../src/shared/protocol';
import type { ChatHooks } from '../../../src/vscode/chat/chatView';
import type { CleanUpOutcome, ImportOutcome } from '../../../src/vscode/chat/conversationMaintenance';
import { activateExtension, waitFor } from '../helpers';

/** An exported conversation with everything an export carries. */
function exported(id: string, title: string, updated: string, extra: Partial<ConversationRecord['conversation']> = {}): ConversationRecord {
  return {
    conversation: { id, title, created: updated, updated, turnCount: 2, inputTokens: 30, outputTokens: 12, tags: ['imported', 'errors'], ...extra },
    turns: [
      {
        conversationId: id, index: 0, question: `${title}?`, answer: 'They are thrown as [[errors-become-responses-at-the-edge]] and `src/errors.ts:HttpError`.',
        context: { pages: [{ slug: 'errors-become-responses-at-the-edge', title: 'Errors', score: 3, stale: false }], offline: false, selection: { path: 'src/errors.ts', startLine: 1, endLine: 4, language: 'typescript', text: 'export class HttpError {}', truncated: false } },
        model: 'claude-imported', inputTokens: 20, outputTokens: 8, created: updated,
        steps: [{ tool: 'read_code', input: { citation: 'src/errors.ts:HttpError' }, label: 'Read src/errors.ts:HttpError', ok: true, summary: 'lines 1–4', output: 'export class HttpError {}' }],
      },
      {
        conversationId: id, index: 1, question: 'And then?', answer: 'The edge turns it into a response.', context: { pages: [], offline: false, summarisedPriorTurns: 1 },
        model: 'claude-imported', inputTokens: 10, outputTokens: 4, created: updated,
      },
    ],
  };
}

describe('Conversations that last, in a real VS Code extension host', () => {
  let chat: ChatHooks;
  let dir: string;
  const posted: HostToWebview[] = [];
  const last = <T extends HostToWebview['type']>(type: T) => [...posted].reverse().find((m): m is Extract<HostToWebview, { type: T }> => m.type === type);
  const listed = () => last('conversations')?.items ?? [];

  before(async () => {
    const api = await activateExtension();
    chat = api.hooks.chat as ChatHooks;
    chat.onDidPost((message) => posted.push(message));
    await chat.send({ type: 'newConversation' }); // the chat view's host side exists from here on
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-imports-'));
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function write(name: string, text: string): vscode.Uri {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return vscode.Uri.file(file);
  }

  it('imports JSON and Markdown exports with nothing lost, a taken id gets a new one, and a malformed file brings in nothing', async () => {
    const json = exported('import-json-1', 'How do errors become responses', '2026-11-20T10:00:00.000Z', { filedPage: 'errors-become-responses-at-the-edge' });
    const markdown = exported('import-md-1', 'Where are errors caught', '2026-11-21T10:00:00.000Z');
    const broken = JSON.parse(conversationToJson(exported('import-broken-1', 'Broken', '2026-11-21T10:00:00.000Z')));
    broken.turns[1].inputTokens = -3;
    const files = [write('errors.json', conversationToJson(json)), write('caught.md', conversationToMarkdown(markdown)), write('broken.json', JSON.stringify(broken))];
    const outcome = await vscode.commands.executeCommand<ImportOutcome>('repoWiki.importConversations', files);
    assert.deepEqual(outcome.imported.map((i) => [i.file, i.id]), [['errors.json', 'import-json-1'], ['caught.md', 'import-md-1']]);
    assert.deepEqual(outcome.failed, [{ file: 'broken.json', message: 'turns[1].inputTokens is not a token count' }]);

    const items = await waitFor('the imported conversations in the history', () => listed().some((c) => c.id === 'import-md-1') && listed());
    assert.equal(items.some((c) => c.id === 'import-broken-1'), false, 'nothing of the malformed file');
    for (const record of [json, markdown]) {
      const item = items.find((c) => c.id === record.conversation.id)!;
      assert.deepEqual(
        { title: item.title, updated: item.updated, turns: item.turnCount, tags: item.tags, filed: item.filedPage, input: item.inputTokens, output: item.outputTokens },
        { title: record.conversation.title, updated: record.conversation.updated, turns: 2, tags: ['errors', 'imported'], filed: record.conversation.filedPage, input: 30, output: 12 },
      );
      await chat.send({ type: 'openConversation', conversationId: record.conversation.id });
      const opened = last('conversation')!;
      assert.equal(opened.conversation?.id, record.conversation.id);
      assert.deepEqual(opened.turns.map((t) => [t.question, t.answer, t.model, t.created, t.inputTokens, t.outputTokens]), record.turns.map((t) => [t.question, t.answer, t.model, t.created, t.inputTokens, t.outputTokens]));
      assert.deepEqual(opened.turns[0].pages, [{ slug: 'errors-become-responses-at-the-edge', title: 'Errors', stale: false }]);
      assert.deepEqual(opened.turns[0].selection, { path: 'src/errors.ts', startLine: 1, endLine: 4 });
      assert.equal(opened.turns[0].steps?.[0].label, 'Read src/errors.ts:HttpError');
      assert.equal(opened.turns[1].summarisedPriorTurns, 1);
    }

    const again = await vscode.commands.executeCommand<ImportOutcome>('repoWiki.importConversations', [files[0]]);
    assert.equal(again.imported.length, 1);
    assert.notEqual(again.imported[0].id, 'import-json-1', 'a duplicate id gets a new one');
    await waitFor('both copies in the history', () => listed().filter((c) => c.title === json.conversation.title).length === 2);
  });

  it('adds and removes tags; search finds a conversation by its tag', async () => {
    await chat.send({ type: 'addTag', conversationId: 'import-md-1', tag: 'okapi-tag' });
    assert.deepEqual(listed().find((c) => c.id === 'import-md-1')?.tags, ['errors', 'imported', 'okapi-tag']);
    await chat.send({ type: 'search', query: 'okapi' });
    assert.deepEqual(last('searchResults')?.hits.map((h) => [h.conversationId, h.tags]), [['import-md-1', ['errors', 'imported', 'okapi-tag']]]);
    await chat.send({ type: 'removeTag', conversationId: 'import-md-1', tag: 'imported' });
    await chat.send({ type: 'removeTag', conversationId: 'import-md-1', tag: 'okapi-tag' });
    assert.deepEqual(listed().find((c) => c.id === 'import-md-1')?.tags, ['errors']);
    await chat.send({ type: 'search', query: 'okapi' });
    assert.deepEqual(last('searchResults')?.hits, []);
  });

  it('cleans up old conversations, keeping the ones filed to the wiki unless asked', async () => {
    const files = [
      write('old.json', conversationToJson(exported('retention-old', 'An old question', '2024-01-01T00:00:00.000Z'))),
      write('old-filed.json', conversationToJson(exported('retention-filed', 'An old filed question', '2024-02-01T00:00:00.000Z', { filedPage: 'errors-become-responses-at-the-edge' }))),
    ];
    await vscode.commands.executeCommand('repoWiki.importConversations', files);
    const kept = await vscode.commands.executeCommand<CleanUpOutcome>('repoWiki.cleanUpConversations', { olderThanDays: 365 });
    assert.deepEqual(kept.deleted.map((c) => c.id), ['retention-old']);
    assert.deepEqual(kept.keptFiled.map((c) => c.id), ['retention-filed']);
    const items = await waitFor('the history without the old conversation', () => !listed().some((c) => c.id === 'retention-old') && listed());
    assert.ok(items.some((c) => c.id === 'retention-filed'));
    assert.ok(items.some((c) => c.id === 'import-json-1'), 'recent conversations stay');

    const all = await vscode.commands.executeCommand<CleanUpOutcome>('repoWiki.cleanUpConversations', { olderThanDays: 365, includeFiled: true });
    assert.deepEqual(all.deleted.map((c) => c.id), ['retention-filed']);
    await waitFor('the filed one gone too', () => !listed().some((c) => c.id === 'retention-filed'));
  });
});
