import * as path from 'node:path';
import { PLACEHOLDER_TITLE_SOURCES, type Conversation, type ConversationRecord, type ConversationStore, type PriorTurnsSummary, type SearchHit, type Turn } from '../../src/core/chat/conversation';
import { FileAccessError } from '../../src/core/errors';
import { Wiki } from '../../src/core/wiki/wiki';
import { LlmError, type CompletionRequest, type LanguageModel, type StreamCallbacks } from '../../src/core/llm/languageModel';
import type { Clock, FileStat, FileSystem, ReadOptions } from '../../src/core/ports';

/**
 * In-memory file system for core tests; `failWrites` simulates a read-only disk, `refused` the
 * file-access module's refusals (a FIFO, a link out), `lockHeld` the write lock being taken.
 */
export class MemoryFileSystem implements FileSystem {
  readonly files = new Map<string, Uint8Array>();
  readonly dirs = new Set<string>(['/']);
  readonly refused = new Map<string, FileAccessError>();
  failWrites?: Error;
  lockHeld = 0;
  private lockQueue: Promise<void> = Promise.resolve();
  locksTaken: string[] = [];

  write(file: string, content: string | Uint8Array): void {
    this.addDir(path.dirname(file));
    this.files.set(file, typeof content === 'string' ? new TextEncoder().encode(content) : content);
  }

  text(file: string): string | undefined {
    const bytes = this.files.get(file);
    return bytes && new TextDecoder().decode(bytes);
  }

  refuse(file: string, reason: FileAccessError['reason'], message = `${file} is refused (${reason})`): void {
    this.refused.set(file, new FileAccessError(reason, file, message));
  }

  async readFile(file: string, options: ReadOptions = {}): Promise<Uint8Array> {
    const refusal = this.refused.get(file) ?? this.refused.get(path.dirname(file));
    if (refusal) throw refusal;
    const bytes = this.files.get(file);
    if (!bytes) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
    if (options.maxBytes !== undefined && bytes.byteLength > options.maxBytes) {
      if (options.truncate) return bytes.subarray(0, options.maxBytes);
      throw new FileAccessError('too-large', file, `${file} is larger than ${options.maxBytes} bytes`);
    }
    return bytes;
  }

  async readVersioned(file: string, options: ReadOptions = {}): Promise<{ bytes: Uint8Array; version?: string }> {
    const bytes = await this.readFile(file, options);
    return { bytes, version: this.versionOf(this.files.get(file)!) };
  }

  /** Every content set, by write() or into `files`, is a new version. */
  private readonly versions = new WeakMap<Uint8Array, string>();
  private nextVersion = 0;
  private versionOf(bytes: Uint8Array): string {
    let version = this.versions.get(bytes);
    if (!version) this.versions.set(bytes, (version = String(++this.nextVersion)));
    return version;
  }

  async assertWritable(file: string): Promise<void> {
    const refusal = this.refused.get(file) ?? this.refused.get(path.dirname(file));
    if (refusal) throw refusal;
  }

  /** A mutex, as the real lock is: a nested take waits for itself, and the test times out. */
  async withLock<T>(lockPath: string, work: () => Promise<T>): Promise<T> {
    this.locksTaken.push(lockPath);
    const previous = this.lockQueue;
    let release!: () => void;
    this.lockQueue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.lockHeld++;
    try {
      return await work();
    } finally {
      this.lockHeld--;
      release();
    }
  }

  async writeFileAtomic(file: string, data: string): Promise<void> {
    if (this.failWrites) throw this.failWrites;
    if (!this.dirs.has(path.dirname(file))) throw Object.assign(new Error(`ENOENT: ${path.dirname(file)}`), { code: 'ENOENT' });
    this.write(file, data);
  }

  async appendFile(file: string, data: string): Promise<void> {
    if (this.failWrites) throw this.failWrites;
    this.write(file, (this.text(file) ?? '') + data);
  }

  async stat(file: string): Promise<FileStat | undefined> {
    const bytes = this.files.get(file);
    if (bytes) return { size: bytes.byteLength, isFile: true, isDirectory: false, version: this.versionOf(bytes) };
    return this.dirs.has(file) ? { size: 0, isFile: false, isDirectory: true } : undefined;
  }

  async readdir(dir: string): Promise<string[]> {
    const refusal = this.refused.get(dir);
    if (refusal) throw refusal;
    const names = new Set<string>();
    for (const entry of [...this.files.keys(), ...this.dirs]) {
      if (entry !== dir && path.dirname(entry) === dir) names.add(path.basename(entry));
    }
    return [...names];
  }

  async mkdir(dir: string): Promise<void> {
    if (this.failWrites) throw this.failWrites;
    this.addDir(dir);
  }

  async remove(file: string): Promise<boolean> {
    const refusal = this.refused.get(file) ?? this.refused.get(path.dirname(file));
    if (refusal) throw refusal;
    if (this.failWrites) throw this.failWrites;
    return this.files.delete(file);
  }

  private addDir(dir: string): void {
    for (let current = dir; !this.dirs.has(current); current = path.dirname(current)) this.dirs.add(current);
  }
}

export const fixedClock = (iso = '2026-11-22T10:00:00.000Z'): Clock => ({ now: () => new Date(iso) });

/** A page file with valid frontmatter; `fields` overrides or adds keys (raw YAML lines). */
export function pageText(title: string, body = '', fields: Record<string, string> = {}): string {
  const base: Record<string, string> = {
    title: JSON.stringify(title),
    topic: 'architecture',
    summary: JSON.stringify(`About ${title}`),
    status: 'active',
    tags: '[]',
    created: '2026-11-01',
    updated: '2026-11-02',
    ...fields,
  };
  const yaml = Object.entries(base).filter(([, v]) => v !== '').map(([k, v]) => `${k}: ${v}`).join('\n');
  return `---\n${yaml}\n---\n${body}`;
}

/** In-memory conversation store for core chat tests. */
export class MemoryConversationStore implements ConversationStore {
  readonly conversations = new Map<string, ConversationRecord>();
  private nextId = 1;

  async list(): Promise<Conversation[]> {
    return [...this.conversations.values()].map((r) => ({ ...r.conversation })).sort((a, b) => b.updated.localeCompare(a.updated));
  }

  async get(id: string): Promise<ConversationRecord | undefined> {
    const record = this.conversations.get(id);
    return record && { conversation: { ...record.conversation }, turns: [...record.turns], ...(record.siblings ? { siblings: [...record.siblings] } : {}) };
  }

  async create(title: string, id?: string): Promise<Conversation> {
    const now = new Date().toISOString();
    if (id !== undefined && this.conversations.has(id)) throw new Error(`There is already a conversation ${id}.`);
    const conversation: Conversation = { id: id ?? `c${this.nextId++}`, title, titleSource: 'question', created: now, updated: now, turnCount: 0, inputTokens: 0, outputTokens: 0, tags: [] };
    this.conversations.set(conversation.id, { conversation, turns: [] });
    return { ...conversation };
  }

  async appendTurn(turn: Omit<Turn, 'index'>): Promise<Turn> {
    const record = this.conversations.get(turn.conversationId)!;
    const stored = { ...turn, index: record.turns.length };
    record.turns.push(stored);
    record.conversation.turnCount = record.turns.length;
    record.conversation.inputTokens += turn.inputTokens;
    record.conversation.outputTokens += turn.outputTokens;
    record.conversation.updated = turn.created;
    return stored;
  }

  /** Keeps every answer; the record shows the latest at each question, as the real store does after Retry. */
  async appendSibling(turn: Omit<Turn, 'index'>, index: number): Promise<Turn> {
    const record = this.conversations.get(turn.conversationId)!;
    const previous = record.turns[index];
    const count = (previous.siblingCount ?? 1) + 1;
    const stored = { ...turn, index, sibling: count - 1, siblingCount: count };
    record.siblings = [...(record.siblings ?? []), { ...previous, siblingCount: undefined }];
    record.turns[index] = stored;
    record.conversation.inputTokens += turn.inputTokens;
    record.conversation.outputTokens += turn.outputTokens;
    return stored;
  }

  async showSibling(id: string, index: number, sibling: number): Promise<void> {
    const record = this.conversations.get(id)!;
    const shown = record.turns[index];
    const wanted = record.siblings?.find((turn) => turn.index === index && (turn.sibling ?? 0) === sibling);
    if (!wanted) return;
    record.siblings = [...record.siblings!.filter((turn) => turn !== wanted), { ...shown, siblingCount: undefined }];
    record.turns[index] = { ...wanted, siblingCount: shown.siblingCount };
  }

  async rename(id: string, title: string): Promise<void> {
    Object.assign(this.conversations.get(id)!.conversation, { title, titleSource: 'user' });
  }

  async proposeTitle(id: string, title: string, source: 'model' | 'question'): Promise<boolean> {
    const conversation = this.conversations.get(id)!.conversation;
    if (!conversation.titleSource || !PLACEHOLDER_TITLE_SOURCES.includes(conversation.titleSource)) return false;
    Object.assign(conversation, { title, titleSource: source });
    return true;
  }

  async delete(id: string): Promise<ConversationRecord | undefined> {
    const record = this.conversations.get(id);
    this.conversations.delete(id);
    return record;
  }

  async restore(record: ConversationRecord): Promise<void> {
    this.conversations.set(record.conversation.id, record);
  }

  async setFiledPage(id: string, slug: string): Promise<void> {
    this.conversations.get(id)!.conversation.filedPage = slug;
  }

  async setTags(id: string, tags: readonly string[]): Promise<void> {
    this.conversations.get(id)!.conversation.tags = [...tags];
  }

  async setPriorSummary(id: string, summary: PriorTurnsSummary): Promise<void> {
    this.conversations.get(id)!.conversation.priorSummary = { ...summary };
  }

  async importRecord(record: ConversationRecord): Promise<Conversation> {
    const id = record.conversation.id && !this.conversations.has(record.conversation.id) ? record.conversation.id : `c${this.nextId++}`;
    const turns = record.turns.map((turn, index) => ({ ...turn, conversationId: id, index }));
    this.conversations.set(id, { conversation: { ...record.conversation, id }, turns });
    return { ...record.conversation, id };
  }

  async addRecord(record: ConversationRecord): Promise<Conversation> {
    if (this.conversations.has(record.conversation.id)) throw new Error(`There is already a conversation ${record.conversation.id}.`);
    this.conversations.set(record.conversation.id, { conversation: { ...record.conversation }, turns: [...record.turns] });
    return { ...record.conversation };
  }

  async search(query: string): Promise<SearchHit[]> {
    const hits: SearchHit[] = [];
    for (const { conversation, turns } of this.conversations.values()) {
      for (const turn of turns) {
        if (`${turn.question} ${turn.answer}`.toLowerCase().includes(query.toLowerCase())) {
          hits.push({ conversationId: conversation.id, conversationTitle: conversation.title, turnIndex: turn.index, snippet: turn.question });
        }
      }
    }
    return hits;
  }

  async close(): Promise<void> {}
}

/** A model that replies with the scripted texts in order (or throws the scripted error), recording every request. */
export class ScriptedModel implements LanguageModel {
  readonly requests: CompletionRequest[] = [];
  constructor(private readonly replies: (string | LlmError)[]) {}

  async complete(request: CompletionRequest, callbacks: StreamCallbacks) {
    this.requests.push(request);
    const reply = this.replies.shift() ?? 'default answer';
    if (reply instanceof LlmError) throw reply;
    callbacks.onText(reply);
    return { text: reply, model: 'claude-test-1', inputTokens: 10, outputTokens: 5, stopReason: 'end_turn' as const };
  }
}

/** A wiki in memory at `root` with these pages, a log, a SCHEMA.md and a built index. */
export async function indexedWiki(pages: Record<string, string> = {}, root = '/ws'): Promise<{ fs: MemoryFileSystem; wiki: Wiki }> {
  const fs = new MemoryFileSystem();
  for (const [slug, text] of Object.entries(pages)) fs.write(`${root}/.wiki/pages/${slug}.md`, text);
  fs.write(`${root}/.wiki/log.jsonl`, '');
  fs.write(`${root}/.wiki/SCHEMA.md`, '# Wiki schema\nSlugs are lowercase.\n');
  const wiki = new Wiki(root, fs, fixedClock());
  await wiki.rebuildIndex();
  return { fs, wiki };
}
