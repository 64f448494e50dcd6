import * as path from 'node:path';
import type { Conversation, ConversationRecord, ConversationStore } from '../../core/chat/conversation';
import { WikiError } from '../../core/errors';
import type { Wiki } from '../../core/wiki/wiki';
import type { CliCommand, Format } from '../command';
import { confirm } from '../confirm';
import { openCliConversationStore } from '../conversationTurn';
import { usageLine } from '../help';
import type { Io } from '../io';

/** `repo-wiki conversations`: see `conversationsCommand`. */
export const conversations: CliCommand = {
  name: 'conversations',
  summary: 'list, show, fork, export or save conversations',
  description: 'ACTION is one of: list (the default) shows titles, turns, token totals and tags; show prints one (--format md or json prints its export); delete removes one (asks on a terminal; --yes without); export prints one as Markdown (--format md, the default) or JSON; import FILE adds one from an export (a taken id gets a new one); fork ID --at N starts a new conversation holding turns 1..N of ID (--id names it); save ID files the conversation back to the wiki as a page, as "Save to wiki" does, or with --turns N-M only those turns, as a page of their own that saving the same turns again updates.',
  usage: '[ACTION] [ID | FILE]',
  workspace: 'wiki',
  formats: ['text', 'json', 'md'],
  options: [
    { name: 'yes', description: 'delete without asking' },
    { name: 'at', value: 'N', description: 'fork: the last turn the fork keeps (1-based)' },
    { name: 'id', value: 'NEW', description: 'fork: the new conversation\'s id (default: conv-<8 hex>)' },
    { name: 'turns', value: 'N-M', description: 'save: only these turns (1-based, inclusive)' },
  ],
  async run({ positionals, format, flag, value, wiki, cwd }, io) {
    const [action = 'list', target, ...rest] = positionals;
    const needsTarget = action !== 'list';
    if (!ACTIONS.includes(action) || needsTarget !== (target !== undefined) || rest.length) {
      io.err(usageLine(conversations));
      return 2;
    }
    const store = await openCliConversationStore(wiki.root, io);
    try {
      return await conversationsCommand({ store, wiki, cwd, format, io, yes: flag('yes'), at: value('at'), id: value('id'), turns: value('turns') }, action as Action, target);
    } finally {
      await store.close();
    }
  },
};

const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
const ACTIONS = ['list', 'show', 'delete', 'export', 'import', 'fork', 'save'];
type Action = 'list' | 'show' | 'delete' | 'export' | 'import' | 'fork' | 'save';

interface Context {
  store: ConversationStore;
  wiki: Wiki;
  cwd: string;
  format: Format;
  io: Io;
  yes: boolean;
  at?: string;
  id?: string;
  turns?: string;
}

/** Runs one action; 0 done, 1 not done (a delete declined), 2 a usage error. A refusal throws its WikiError. */
export async function conversationsCommand(context: Context, action: Action, target: string | undefined): Promise<number> {
  const { io, format } = context;
  if (format === 'md' && action !== 'show' && action !== 'export') {
    io.err(`--format md is for show and export; conversations ${action} takes text or json.`);
    return 2;
  }
  if (action === 'list') return list(context);
  if (action === 'import') return importFile(context, target!);
  const record = await context.store.get(target!);
  if (!record) throw notFound(target!);
  switch (action) {
    case 'show':
    case 'export': {
      const { conversationToJson, conversationToMarkdown } = await import('../../core/chat/export');
      // show in text is for reading; export and --format md are the Markdown export, which imports back.
      io.out(format === 'json' ? conversationToJson(record).trimEnd() : action === 'show' && format === 'text' ? showText(record) : conversationToMarkdown(record).trimEnd());
      return 0;
    }
    case 'delete':
      return remove(context, record.conversation);
    case 'fork':
      return fork(context, record);
    case 'save':
      return save(context, record);
  }
}

const notFound = (id: string) => new WikiError('conversation-not-found', `There is no conversation "${id}" in this workspace.`, 'List them with: repo-wiki conversations list');

async function list({ store, io, format }: Context): Promise<number> {
  const all = await store.list();
  if (format === 'json') {
    io.out(JSON.stringify(all.map(({ id, title, created, updated, turnCount, inputTokens, outputTokens, tags, filedPage, parentConversationId, forkedAtTurn }) => ({
      id, title, created, updated, turns: turnCount, inputTokens, outputTokens, tags,
      ...(filedPage ? { filedPage } : {}), ...(parentConversationId ? { parentConversationId, forkedAtTurn } : {}),
    })), null, 2));
    return 0;
  }
  if (!all.length) {
    io.out('No conversations yet. Start one: repo-wiki query "…" --new');
    return 0;
  }
  for (const c of all) {
    const tags = c.tags.length ? `  [${c.tags.join(', ')}]` : '';
    const fork = c.parentConversationId ? `  (fork of ${c.parentConversationId} at turn ${c.forkedAtTurn})` : '';
    io.out(`${c.id}  ${c.title}\n    ${c.turnCount} turn${c.turnCount === 1 ? '' : 's'} · ${c.inputTokens.toLocaleString('en')} in, ${c.outputTokens.toLocaleString('en')} out tokens · updated ${c.updated.slice(0, 16).replace('T', ' ')}${tags}${fork}`);
  }
  return 0;
}

function showText({ conversation, turns }: ConversationRecord): string {
  const lines = [`${conversation.title}  (${conversation.id})`, `${turns.length} turn${turns.length === 1 ? '' : 's'} · ${conversation.inputTokens.toLocaleString('en')} in, ${conversation.outputTokens.toLocaleString('en')} out tokens${conversation.tags.length ? ` · tags: ${conversation.tags.join(', ')}` : ''}`];
  if (conversation.parentConversationId) lines.push(`Forked from ${conversation.parentConversationId} at turn ${conversation.forkedAtTurn}.`);
  turns.forEach((turn, i) => lines.push('', `[${i + 1}] ${turn.question}`, '', turn.answer.trim(), '', `    ${turn.model} · ${turn.inputTokens.toLocaleString('en')} in, ${turn.outputTokens.toLocaleString('en')} out`));
  return lines.join('\n');
}

async function remove({ store, io, format, yes }: Context, conversation: Conversation): Promise<number> {
  if (!yes) {
    if (!process.stdin.isTTY) {
      io.err(`Not deleted: pass --yes to delete "${conversation.title}" (${conversation.id}) without a terminal.`);
      return 1;
    }
    if (!(await confirm(`Delete "${conversation.title}" (${conversation.id}, ${conversation.turnCount} turns)? [y/N] `))) {
      io.err('Not deleted.');
      return 1;
    }
  }
  await store.delete(conversation.id);
  if (format === 'json') io.out(JSON.stringify({ id: conversation.id, deleted: true }));
  else io.out(`Deleted ${conversation.id} (${conversation.title}).`);
  return 0;
}

async function importFile({ store, io, format, cwd }: Context, file: string): Promise<number> {
  const { parseConversationExport, ImportError } = await import('../../core/chat/import');
  const { WorkspaceFiles } = await import('../../adapters/files/workspaceFiles');
  const full = path.resolve(cwd, file);
  // As the chat's import reads: a FIFO, a device or a file over the cap is refused, never waited on.
  const text = new TextDecoder().decode(await new WorkspaceFiles(path.dirname(full)).readFile(full, { maxBytes: MAX_IMPORT_BYTES }));
  let record;
  try {
    record = parseConversationExport(text);
  } catch (error) {
    if (error instanceof ImportError) throw new WikiError('invalid-export', `${file} cannot be imported: ${error.message}.`, 'Import a file exported by Repo Wiki (Markdown or JSON).');
    throw error;
  }
  const stored = await store.importRecord(record);
  const renamed = stored.id !== record.conversation.id;
  if (format === 'json') io.out(JSON.stringify({ id: stored.id, title: stored.title, turns: stored.turnCount, ...(renamed ? { originalId: record.conversation.id } : {}) }));
  else io.out(`Imported ${stored.id} (${stored.title}, ${stored.turnCount} turns)${renamed ? `; ${record.conversation.id} was taken, so it got a new id` : ''}.`);
  return 0;
}

async function fork({ store, io, format, at, id }: Context, parent: ConversationRecord): Promise<number> {
  const parentId = parent.conversation.id;
  if (at === undefined) {
    io.err(`Say where to fork: repo-wiki conversations fork ${parentId} --at N`);
    return 2;
  }
  const { forkRecord, newConversationId, requireConversationId } = await import('../../core/chat/lineage');
  const atTurn = /^\d+$/.test(at) ? Number(at) : Number.NaN;
  const record = forkRecord(parent, atTurn, id === undefined ? newConversationId() : requireConversationId(id), new Date().toISOString());
  const forked = await store.addRecord(record);
  if (format === 'json') io.out(JSON.stringify({ id: forked.id, title: forked.title, turns: forked.turnCount, parentConversationId: parentId, forkedAtTurn: atTurn }));
  else io.out(`Forked ${parentId} at turn ${atTurn} as ${forked.id} (${forked.title}). Continue it: repo-wiki query "…" --conversation ${forked.id}`);
  return 0;
}

async function save({ store, wiki, io, format, turns }: Context, record: ConversationRecord): Promise<number> {
  const [{ fileBackConversation, fileBackTurns }, { parseTurnRange }] = await Promise.all([import('../../core/chat/fileBack'), import('../../core/chat/lineage')]);
  const id = record.conversation.id;
  const today = new Date().toISOString().slice(0, 10);
  const range = turns === undefined ? undefined : parseTurnRange(turns, record.turns.length);
  const result = range ? await fileBackTurns(wiki, record, range, today) : await fileBackConversation(wiki, store, record, today);
  const relative = path.relative(wiki.root, result.path).split(path.sep).join('/');
  if (format === 'json') io.out(JSON.stringify({ slug: result.slug, path: relative, created: result.created, ...(range ? { turns: range } : {}) }));
  else io.out(`${result.created ? 'Saved' : 'Updated'} ${relative}${range ? ` (turns ${range.from}-${range.to} of ${id})` : ''}.`);
  return 0;
}
