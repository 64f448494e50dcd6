import * as assert from 'node:assert/strict';
import { ChatService, type ChatSettings } from '../../../../src/core/chat/chatService';
import type { Conversation } from '../../../../src/core/chat/conversation';
import { WikiError } from '../../../../src/core/errors';
import { MemoryConversationStore } from '../../../support/fakes';

const SETTINGS: ChatSettings = { model: 'claude-test', maxTokens: 1000, maxPriorTurns: 5, priorAnswerChars: 500, pagesPerTurn: 3, maxToolRounds: 0, toolTokenBudget: 100_000 };

/** A store where another process creates the conversation between this one's look-up and its create. */
class RacedStore extends MemoryConversationStore {
  raced = 0;
  override async create(title: string, id?: string): Promise<Conversation> {
    if (id !== undefined && this.raced++ === 0) {
      await super.create('Started elsewhere', id);
      throw new WikiError('conversation-exists', `There is already a conversation ${id}.`);
    }
    return super.create(title, id);
  }
}

const chat = (store: MemoryConversationStore) => new ChatService({ store, pages: async () => [], chooseModel: async () => ({ offline: 'requested' }), settings: () => SETTINGS, now: () => new Date('2026-11-22T10:00:00Z') });

describe('a conversation the terminal names', () => {
  it('starts under the given id, and a second turn continues it', async () => {
    const store = new MemoryConversationStore();
    const first = await chat(store).ask({ conversationId: 'pr-42', newConversationId: 'pr-42', question: 'First?' }, { onText: () => undefined });
    assert.equal(first.conversation.id, 'pr-42');
    const second = await chat(store).ask({ conversationId: 'pr-42', newConversationId: 'pr-42', question: 'Second?' }, { onText: () => undefined });
    assert.deepEqual([second.conversation.id, second.turn.index, second.conversation.turnCount], ['pr-42', 1, 2]);
  });

  it('continues it when another process started the same id meanwhile, rather than failing', async () => {
    const store = new RacedStore();
    const result = await chat(store).ask({ conversationId: 'pr-7', newConversationId: 'pr-7', question: 'Review this' }, { onText: () => undefined });
    assert.deepEqual([result.conversation.id, result.conversation.title, result.turn.index], ['pr-7', 'Started elsewhere', 0]);
  });

  it('--new never continues another conversation: a taken fresh id is an error', async () => {
    const store = new RacedStore();
    await assert.rejects(chat(store).ask({ newConversationId: 'conv-00000000', question: 'New?' }, { onText: () => undefined }), (e: unknown) => e instanceof WikiError && e.code === 'conversation-exists');
  });
});
