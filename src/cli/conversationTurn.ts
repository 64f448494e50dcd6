import * as fs from 'node:fs';
import * as path from 'node:path';
import { DATA_DIR_VARIABLE } from '../adapters/store/dataHome';
import type { SqlJsConversationStore } from '../adapters/store/sqlJsConversationStore';
import type { Answer, AnswerDependencies, AskEvents } from '../core/chat/chatService';
import type { Conversation, ConversationStore, TurnContext } from '../core/chat/conversation';
import { newConversationId, requireConversationId } from '../core/chat/lineage';
import { MODEL_DEFAULTS } from '../core/defaults';
import { WikiError } from '../core/errors';
import { nearContextLimit, nearLimitMessage } from '../shared/contextLimit';
import type { OptionSpec } from './command';
import type { Io } from './io';

/** `repo-wiki query --conversation ID | --new`: a turn of a conversation kept in the store the chat in VS Code shares. */

export const CONVERSATION_OPTIONS: readonly OptionSpec[] = [
  { name: 'conversation', value: 'ID', description: 'continue conversation ID, or start one under that id (1-64 letters, digits, "-", "_")' },
  { name: 'new', description: 'start a new conversation (conv-<8 hex>) and print its id' },
];

export const CONVERSATION_HELP = `--conversation ID continues a conversation (the chat in VS Code sees the same ones) with its earlier turns carried as the chat carries them, or starts one under that id; --new starts one and prints its id. Conversations live in the user's data folder (${DATA_DIR_VARIABLE} overrides it), never in the repository; see repo-wiki conversations.`;

/** Which conversation a query belongs to: `id`, made now when `fresh`. */
export interface ConversationChoice {
  id: string;
  /** --new: the id was made now; it is printed, and never continues another conversation. */
  fresh?: boolean;
}

/** --conversation and --new, checked; undefined for a one-shot query. */
export function conversationChoice(id: string | undefined, startNew: boolean): ConversationChoice | undefined {
  if (id !== undefined && startNew) throw new WikiError('invalid-conversation-id', 'Give --conversation ID or --new, not both.', '--new starts a conversation; --conversation ID continues one (or starts it under that id).');
  if (id !== undefined) return { id: requireConversationId(id) };
  return startNew ? { id: newConversationId(), fresh: true } : undefined;
}

export interface ConversationTurnOptions extends ConversationChoice {
  store: ConversationStore;
  /** The conversation the turn goes to, before the answer streams. */
  onConversation?(conversation: Conversation): void;
}

/** A conversation after a turn, and that turn's number (1-based). */
export type ConversationAfterTurn = Conversation & { turn: number };

/** One turn through the chat service: the same prior turns, summaries and stored turn as the chat. */
export async function askInConversation(
  options: ConversationTurnOptions,
  deps: AnswerDependencies,
  request: { question: string; offline: boolean },
  events: AskEvents,
): Promise<{ conversation: ConversationAfterTurn; answer: Answer }> {
  const { ChatService } = await import('../core/chat/chatService');
  const service = new ChatService({ ...deps, store: options.store, now: () => new Date() });
  const result = await service.ask(
    { ...request, ...(options.fresh ? {} : { conversationId: options.id }), newConversationId: options.id },
    { ...events, onConversation: (conversation) => options.onConversation?.(conversation) },
  );
  return { conversation: { ...result.conversation, turn: result.turn.index + 1 }, answer: result.answer };
}

/** The conversation's part of `query --format json`. */
export function conversationJson(conversation: ConversationAfterTurn, context: TurnContext) {
  const near = nearContextLimit(context.promptTokens, context.contextWindow ?? MODEL_DEFAULTS.contextWindowTokens);
  return {
    conversation: conversation.id,
    turn: conversation.turn,
    conversationUsage: { turns: conversation.turnCount, inputTokens: conversation.inputTokens, outputTokens: conversation.outputTokens },
    ...(near === undefined ? {} : { contextWarning: nearLimitWarning(near, conversation.id) }),
  };
}

/** What text mode tells on stderr after the answer: where the turn went, the running totals, and the near-limit warning. */
export function conversationLines(conversation: ConversationAfterTurn, context: TurnContext): string[] {
  const near = nearContextLimit(context.promptTokens, context.contextWindow ?? MODEL_DEFAULTS.contextWindowTokens);
  const totals = `${conversation.inputTokens.toLocaleString('en')} in, ${conversation.outputTokens.toLocaleString('en')} out`;
  return [
    `Conversation ${conversation.id} · turn ${conversation.turn} · so far ${conversation.turnCount} turn${conversation.turnCount === 1 ? '' : 's'}, ${totals} tokens`,
    ...(near === undefined ? [] : [nearLimitWarning(near, conversation.id)]),
  ];
}

const nearLimitWarning = (share: number, id: string): string => `${nearLimitMessage(share)} Start a new one with --new (or fork an earlier turn: repo-wiki conversations fork ${id} --at N) to keep answers complete.`;

/**
 * Opens this workspace folder's conversation store, as the extension does: a moved folder's
 * conversations are adopted (said on stderr), and a damaged database is set aside with a warning.
 */
export async function openCliConversationStore(workspaceRoot: string, io: Io): Promise<SqlJsConversationStore> {
  const { openWorkspaceConversationStore } = require('../adapters/store/workspaceStore') as typeof import('../adapters/store/workspaceStore'); // store.js beside the CLI; require, not import(): see mcp.ts
  // dist/ holds sql-wasm.wasm beside the bundles (the packed CLI has no node_modules/sql.js to find it in).
  const wasm = path.join(__dirname, 'sql-wasm.wasm');
  const opened = await openWorkspaceConversationStore({
    folder: workspaceRoot,
    ...(fs.existsSync(wasm) ? { wasmPath: wasm } : {}),
    adopt: async () => true,
    onWarning: (message) => io.err(`repo-wiki: warning: ${message}`),
  });
  for (const notice of opened.notices) io.err(`repo-wiki: ${notice}`);
  for (const warning of opened.warnings) io.err(`repo-wiki: warning: ${warning}`);
  return opened.store;
}
