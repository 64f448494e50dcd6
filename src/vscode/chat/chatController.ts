import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { MODEL_DEFAULTS } from '../../core/defaults';
import { ChatService, type AskEvents, type AskResult, type ModelChoice } from '../../core/chat/chatService';
import { MAX_TAGS, PLACEHOLDER_TITLE_SOURCES, tagSet, type Conversation, type ConversationRecord, type ConversationStore, type SelectionContext, type ToolStep, type Turn } from '../../core/chat/conversation';
import { conversationToJson, conversationToMarkdown } from '../../core/chat/export';
import { fileBackConversation, fileBackTurns } from '../../core/chat/fileBack';
import { rangeOfTurnIndexes } from '../../core/chat/lineage';
import { WikiError } from '../../core/errors';
import { parseCitationText } from '../../core/drift/citations';
import type { CodeLocation } from '../../core/drift/driftEngine';
import { isLlmError } from '../../core/llm/languageModel';
import type { Wiki } from '../../core/wiki/wiki';
import { normaliseTag } from '../../shared/tags';
import type { ConversationSummary, HostToWebview, PageRef, SelectionChip, StepView, TurnView, WebviewToHost } from '../../shared/protocol';
import type { Services } from '../services/services';
import { locateCitation, showCodeLocation } from '../drift/locateCitation';
import { ensureTrusted, showError } from '../common/userErrors';
import type { ConversationStoreHost } from './conversationStoreHost';
import { answeredBy } from '../../shared/answeredBy';

/** How long a deleted conversation can be brought back. */
const UNDO_MS = 60_000;

interface PendingSelection {
  context: SelectionContext;
  pages: PageRef[];
}

/** The host side of the chat view: runs turns, manages conversations, acts on validated messages. */
export class ChatController implements vscode.Disposable {
  private readonly inflight = new Map<string, AbortController>();
  private readonly selections = new Map<string, PendingSelection>();
  private readonly deleted = new Map<string, { record: ConversationRecord; timer: NodeJS.Timeout }>();
  private chat?: ChatService;
  /** The wiki the turn being answered reads from. */
  private toolWiki?: Wiki;

  constructor(
    private readonly services: Services,
    private readonly stores: ConversationStoreHost,
    private readonly post: (message: HostToWebview) => void,
  ) {}

  async handle(message: Exclude<WebviewToHost, { type: 'ready' | 'runCommand' }>): Promise<void> {
    switch (message.type) {
      case 'ask': return this.ask(message.requestId, message.question, message.conversationId, message.selectionId ? this.takeSelection(message.selectionId) : undefined);
      case 'retry': return this.retry(message.requestId, message.conversationId);
      case 'listConversations': return this.postConversations();
      case 'showSibling': return this.showSibling(message.conversationId, message.turnIndex, message.sibling);
      case 'editQuestion': return this.runTurn(message.requestId, (chat, events, signal) => chat.edit({ conversationId: message.conversationId, turnIndex: message.turnIndex, question: message.question }, events, signal));
      case 'stop': return void this.inflight.get(message.requestId)?.abort();
      case 'newConversation': return this.post({ type: 'conversation', conversation: null, turns: [] });
      case 'openConversation': return this.openConversation(message.conversationId);
      case 'search': return this.post({ type: 'searchResults', query: message.query, hits: message.query.trim() ? await (await this.store()).search(message.query, 50) : [] });
      case 'rename': await (await this.store()).rename(message.conversationId, message.title.trim()); return this.postConversations();
      case 'addTag': return this.changeTags(message.conversationId, (tags) => [...tags, message.tag]);
      case 'removeTag': return this.changeTags(message.conversationId, (tags) => tags.filter((tag) => tag !== message.tag));
      case 'delete': return this.delete(message.conversationId);
      case 'undoDelete': return this.undoDelete(message.conversationId);
      case 'export': return this.exportConversation(message.conversationId, message.format);
      case 'saveToWiki': return this.saveToWiki(message.conversationId);
      case 'saveTurns': return this.saveTurns(message.conversationId, message.turnIndexes);
      case 'openPage': return this.openPage(message.slug);
      case 'openCitation': return this.openCitation(message.citation);
      case 'copy': await vscode.env.clipboard.writeText(message.text); return this.post({ type: 'notice', message: 'Copied.' });
      case 'removeSelection': this.selections.delete(message.selectionId); return;
    }
  }

  /** Everything the view needs after (re)loading. */
  async postState(): Promise<void> {
    const trusted = vscode.workspace.isTrusted;
    const offline = !trusted || !(await this.services.models.available());
    this.post({ type: 'state', hasWiki: !!(await this.wiki()), trusted, offline, model: this.services.models.label(), contextWindow: MODEL_DEFAULTS.contextWindowTokens });
    await this.postConversations();
  }

  async postConversations(): Promise<void> {
    const items = (await (await this.store()).list()).map(summary);
    this.post({ type: 'conversations', items });
  }

  /** Attaches a code selection to the next question (from "Ask about selection"). */
  attachSelection(context: SelectionContext, pages: PageRef[], question: string): void {
    const id = randomUUID().replace(/-/g, '');
    this.selections.set(id, { context, pages });
    const preview = context.text.split('\n').slice(0, 12).join('\n').slice(0, 1200);
    const chip: SelectionChip = { id, path: context.path, startLine: context.startLine, endLine: context.endLine, language: context.language, preview, truncated: context.truncated, pages };
    this.post({ type: 'selection', chip, question });
  }

  private takeSelection(id: string): PendingSelection | undefined {
    const selection = this.selections.get(id);
    this.selections.delete(id);
    return selection;
  }

  private ask(requestId: string, question: string, conversationId: string | undefined, selection: PendingSelection | undefined): Promise<void> {
    return this.runTurn(requestId, (chat, events, signal) => chat.ask({ conversationId, question, selection: selection?.context, attachedPages: selection?.pages.map((p) => p.slug) }, events, signal));
  }

  /** Runs one turn (an ask, or an edit that forks), streaming it to the view under `requestId`. */
  private async runTurn(requestId: string, run: (chat: ChatService, events: AskEvents, signal: AbortSignal) => Promise<AskResult>): Promise<void> {
    const controller = new AbortController();
    this.inflight.set(requestId, controller);
    try {
      const chat = await this.chatService();
      const result = await run(chat, {
        onConversation: (conversation) => this.post({ type: 'turnStarted', requestId, conversationId: conversation.id }),
        onContext: (context) => this.post({ type: 'context', requestId, pages: context.pages.map(pageRef), offline: context.offline }),
        onText: (text) => this.post({ type: 'delta', requestId, text }),
        onRetry: (info) => this.post({ type: 'retrying', requestId, ...info }),
        onToolStep: (event) => this.post({ type: 'toolStep', requestId, id: event.id, label: event.label, ...(event.step ? { step: stepView(event.step) } : {}) }),
      }, controller.signal);
      this.post({ type: 'turnDone', requestId, conversation: summary(result.conversation), turn: turnView(result.turn), stopped: result.stopped });
      const failed = result.turn.context.attempts ?? [];
      if (failed.length) this.services.output.warn(`Answered by ${answeredBy(result.turn.model, failed)}. ${failed.map((attempt) => `${attempt.model}: ${attempt.message}`).join(' ')}`);
      await this.postConversations();
      await this.proposeTitle(chat, result.conversation, controller.signal);
    } catch (error) {
      this.post({ type: 'turnFailed', requestId, ...failure(error) });
      if (error instanceof WikiError) this.services.output.warn(`Chat turn refused: ${error.userMessage}`);
      else if (!isLlmError(error)) this.services.output.error('Chat turn failed:', error instanceof Error ? (error.stack ?? error.message) : String(error));
      else this.services.output.warn(`Chat turn failed (${error.kind}${error.status ? `, HTTP ${error.status}` : ''}): ${error.message}`);
    } finally {
      this.inflight.delete(requestId);
    }
  }

  /** After the answer is shown, so the title call never delays it; the conversation list carries the new title. */
  private async proposeTitle(chat: ChatService, conversation: Conversation, signal: AbortSignal): Promise<void> {
    // Most turns have a title already: skip reading the conversation again for them.
    if (!conversation.titleSource || !PLACEHOLDER_TITLE_SOURCES.includes(conversation.titleSource)) return;
    try {
      if (await chat.proposeTitle(conversation.id, signal)) await this.postConversations();
    } catch (error) {
      this.services.output.warn(`Titling conversation ${conversation.id}: ${error instanceof Error ? error.message : String(error)}. It keeps the title it has.`);
    }
  }

  /** Answers the conversation's last question again (with its selection); both answers are kept, the new one shown. */
  private retry(requestId: string, conversationId: string): Promise<void> {
    return this.runTurn(requestId, (chat, events, signal) => chat.retry(conversationId, events, signal));
  }

  /** Shows another answer of a question Retry answered again; the conversation goes on from it. */
  private async showSibling(conversationId: string, turnIndex: number, sibling: number): Promise<void> {
    try {
      await (await this.store()).showSibling(conversationId, turnIndex, sibling);
    } catch (error) {
      if (!(error instanceof WikiError)) throw error;
      this.post({ type: 'notice', message: error.userMessage });
    }
    await this.openConversation(conversationId);
  }

  private async openConversation(id: string): Promise<void> {
    const record = await (await this.store()).get(id);
    if (!record) {
      this.post({ type: 'conversation', conversation: null, turns: [] });
      return;
    }
    this.post({ type: 'conversation', conversation: summary(record.conversation), turns: record.turns.map(turnView) });
  }

  private async changeTags(id: string, change: (tags: readonly string[]) => string[]): Promise<void> {
    const store = await this.store();
    const record = await store.get(id);
    if (!record) return;
    const tags = tagSet(change(record.conversation.tags).flatMap((tag) => normaliseTag(tag) ?? []));
    if (tags.length > MAX_TAGS) {
      this.post({ type: 'notice', message: `A conversation can have at most ${MAX_TAGS} tags.` });
      return;
    }
    await store.setTags(id, tags);
    await this.postConversations();
  }

  private async delete(id: string): Promise<void> {
    const record = await (await this.store()).delete(id);
    if (!record) return;
    clearTimeout(this.deleted.get(id)?.timer);
    this.deleted.set(id, { record, timer: setTimeout(() => this.deleted.delete(id), UNDO_MS) });
    this.post({ type: 'deleted', conversationId: id, title: record.conversation.title });
    await this.postConversations();
  }

  private async undoDelete(id: string): Promise<void> {
    const entry = this.deleted.get(id);
    if (!entry) {
      this.post({ type: 'notice', message: 'That conversation can no longer be restored.' });
      return;
    }
    clearTimeout(entry.timer);
    this.deleted.delete(id);
    await (await this.store()).restore(entry.record);
    await this.postConversations();
    await this.openConversation(id);
  }

  private async exportConversation(id: string, format: 'markdown' | 'json'): Promise<void> {
    const record = await (await this.store()).get(id);
    if (!record) return;
    const extension = format === 'markdown' ? 'md' : 'json';
    const base = record.conversation.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'conversation';
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const target = await vscode.window.showSaveDialog({
      title: 'Export conversation',
      defaultUri: folder ? vscode.Uri.joinPath(folder, `${base}.${extension}`) : undefined,
      filters: format === 'markdown' ? { Markdown: ['md'] } : { JSON: ['json'] },
    });
    if (!target) return;
    const text = format === 'markdown' ? conversationToMarkdown(record) : conversationToJson(record);
    try {
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
      this.post({ type: 'notice', message: `Exported to ${path.basename(target.fsPath)}.` });
    } catch (error) {
      showError(this.services.output, 'Exporting the conversation', error);
    }
  }

  private async saveToWiki(id: string): Promise<void> {
    if (!ensureTrusted('Saving a conversation to the wiki')) return;
    const wiki = await this.services.wikis.pick({ mustExist: true, purpose: 'Save the conversation to which wiki?' });
    if (!wiki) return;
    try {
      const store = await this.store();
      const record = await store.get(id);
      if (!record) return;
      const result = await fileBackConversation(wiki, store, record, new Date().toISOString().slice(0, 10));
      // Record fingerprints for the code the answers cite, so drift checks the page from now on.
      await this.services.cores.of(wiki).drift.stamp(result.slug, { onlyMissing: true }).catch((error: Error) => this.services.output.warn(`Stamping ${result.slug}: ${error.message}`));
      this.services.wikis.notifyChanged(wiki);
      this.post({ type: 'filed', conversationId: id, slug: result.slug });
      await this.postConversations();
      const verb = result.created ? 'Saved' : 'Updated';
      void vscode.window.showInformationMessage(`Repo Wiki: ${verb} the conversation as [[${result.slug}]].`, 'Open Page')
        .then((choice) => choice && vscode.window.showTextDocument(vscode.Uri.file(result.path)));
    } catch (error) {
      showError(this.services.output, 'Saving the conversation to the wiki', error);
    }
  }

  /** Saves the checked turns as a page of their own; saving the same turns again updates that page. */
  private async saveTurns(id: string, turnIndexes: readonly number[]): Promise<void> {
    if (!ensureTrusted('Saving turns to the wiki')) return;
    const wiki = await this.services.wikis.pick({ mustExist: true, purpose: 'Save the turns to which wiki?' });
    if (!wiki) return;
    try {
      const record = await (await this.store()).get(id);
      if (!record) {
        this.post({ type: 'notice', message: 'That conversation is gone: it may have been deleted in another window.' });
        return;
      }
      const range = rangeOfTurnIndexes(turnIndexes, record.turns.length);
      const result = await fileBackTurns(wiki, record, range, new Date().toISOString().slice(0, 10));
      await this.services.cores.of(wiki).drift.stamp(result.slug, { onlyMissing: true }).catch((error: Error) => this.services.output.warn(`Stamping ${result.slug}: ${error.message}`));
      this.services.wikis.notifyChanged(wiki);
      const turns = range.from === range.to ? `turn ${range.from}` : `turns ${range.from}–${range.to}`;
      const verb = result.created ? 'Saved' : 'Updated';
      this.post({ type: 'notice', message: `${verb} ${turns} as [[${result.slug}]].` });
      void vscode.window.showInformationMessage(`Repo Wiki: ${verb} ${turns} of the conversation as [[${result.slug}]].`, 'Open Page')
        .then((choice) => choice && vscode.window.showTextDocument(vscode.Uri.file(result.path)));
    } catch (error) {
      showError(this.services.output, 'Saving the turns to the wiki', error);
    }
  }

  private async openPage(slug: string): Promise<void> {
    const wiki = await this.wiki();
    const page = wiki && (await this.services.snapshots.get(wiki)).pages.find((p) => p.slug === slug);
    if (!wiki || !page) {
      this.post({ type: 'notice', message: `There is no page [[${slug}]] in this wiki.` });
      return;
    }
    if (!page.readable) {
      // A FIFO, a link out of the wiki, a binary file: not opened from a chat link.
      this.post({ type: 'notice', message: `[[${slug}]] is not opened: ${page.problems[0]?.message ?? 'it is not a readable page'}` });
      return;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(wiki.pagePath(slug)), { preview: true });
  }

  private async openCitation(text: string): Promise<void> {
    const citation = parseCitationText(text);
    const wiki = await this.wiki();
    if (!citation || citation.outside || !wiki) {
      this.post({ type: 'notice', message: `${text} is not a code citation inside this workspace.` });
      return;
    }
    let found: CodeLocation | undefined;
    try {
      found = await this.services.cores.of(wiki).drift.locate(citation);
    } catch (error) {
      // The worker refuses a link out of the workspace, a FIFO, a device.
      this.post({ type: 'notice', message: `${text} is not opened: ${(error as Error).message}` });
      return;
    }
    if (!found) {
      this.post({ type: 'notice', message: `${text} does not resolve to any code now.` });
      return;
    }
    await showCodeLocation(wiki.root, found, { preview: true });
  }

  /** The wiki chat answers from: the active editor's, else the first one that exists. */
  private wiki(): Promise<Wiki | undefined> {
    return this.services.wikis.preferred();
  }

  private store(): Promise<ConversationStore> {
    return this.stores.get();
  }

  private async chatService(): Promise<ChatService> {
    this.chat ??= new ChatService({
      store: await this.store(),
      pages: async () => {
        const wiki = await this.wiki();
        this.toolWiki = wiki; // the tools of this turn read the same wiki and folder
        return wiki ? (await this.services.snapshots.get(wiki)).pages : [];
      },
      ages: async (pages) => {
        const wiki = await this.wiki();
        return wiki ? this.services.ages.tags(wiki, pages) : new Map();
      },
      chooseModel: () => this.chooseModel(),
      settings: () => this.services.models.chatSettings(),
      resolves: async (citation) => {
        const wiki = await this.wiki();
        return !!wiki && !!(await locateCitation(this.services, wiki, citation));
      },
      tools: () => (this.toolWiki ? this.services.cores.of(this.toolWiki).tools() : []),
      onTitleFailed: (error) => this.services.output.warn(`The model proposed no title; the conversation keeps the one it has: ${error instanceof Error ? error.message : String(error)}`),
      onSummaryFailed: (error) => this.services.output.warn(`Could not summarise the earlier turns of a conversation: ${error instanceof Error ? error.message : String(error)}`),
      now: () => new Date(),
    });
    return this.chat;
  }

  private async chooseModel(): Promise<ModelChoice> {
    if (!vscode.workspace.isTrusted) return { offline: 'untrusted' };
    const offer = await this.services.models.choose();
    if ('missing' in offer) return { offline: offer.missing === 'no-key' ? 'no-key' : 'no-model' };
    return { model: offer.model };
  }

  dispose(): void {
    for (const controller of this.inflight.values()) controller.abort();
    for (const { timer } of this.deleted.values()) clearTimeout(timer);
  }
}

function summary(conversation: Conversation): ConversationSummary {
  return {
    id: conversation.id, title: conversation.title, updated: conversation.updated, turnCount: conversation.turnCount,
    inputTokens: conversation.inputTokens, outputTokens: conversation.outputTokens, ...(conversation.filedPage ? { filedPage: conversation.filedPage } : {}),
    tags: conversation.tags,
    ...(conversation.parentConversationId ? { parentConversationId: conversation.parentConversationId, forkedAtTurn: conversation.forkedAtTurn } : {}),
  };
}

function stepView(step: ToolStep): StepView {
  return { tool: step.tool, label: step.label, ok: step.ok, summary: step.summary, output: step.output };
}

function pageRef(page: { slug: string; title: string; stale: boolean }): PageRef {
  return { slug: page.slug, title: page.title, stale: page.stale };
}

function turnView(turn: Turn): TurnView {
  const selection = turn.context.selection;
  return {
    index: turn.index, question: turn.question, answer: turn.answer, pages: turn.context.pages.map(pageRef), model: turn.model,
    offline: turn.context.offline, created: turn.created, inputTokens: turn.inputTokens, outputTokens: turn.outputTokens,
    ...(selection ? { selection: { path: selection.path, startLine: selection.startLine, endLine: selection.endLine } } : {}),
    ...(turn.steps?.length ? { steps: turn.steps.map(stepView) } : {}),
    ...(turn.siblingCount ? { sibling: turn.sibling ?? 0, siblingCount: turn.siblingCount } : {}),
    ...(turn.context.unverified?.length ? { unverified: turn.context.unverified } : {}),
    ...(turn.context.droppedPriorTurns ? { droppedPriorTurns: turn.context.droppedPriorTurns } : {}),
    ...(turn.context.summarisedPriorTurns ? { summarisedPriorTurns: turn.context.summarisedPriorTurns } : {}),
    ...(turn.context.unsummarisedPriorTurns ? { unsummarisedPriorTurns: turn.context.unsummarisedPriorTurns } : {}),
    ...(turn.context.contextWindow ? { contextWindow: turn.context.contextWindow } : {}),
    ...(turn.context.oneShot ? { oneShot: true } : {}),
    ...(turn.context.attempts?.length ? { attempts: turn.context.attempts } : {}),
    ...(turn.context.promptTokens ? { promptTokens: turn.context.promptTokens } : {}),
    ...(turn.context.noMatch ? { noMatch: true } : {}),
  };
}

/** What the chat shows when a turn fails: the reason and the next step. */
function failure(error: unknown): { message: string; action?: 'setUpModel' | 'retry' } {
  if (error instanceof WikiError) return { message: error.userMessage };
  if (isLlmError(error)) {
    if (error.kind === 'auth' || error.kind === 'model-not-found') return { message: error.message, action: 'setUpModel' };
    return { message: error.message, action: 'retry' };
  }
  if (error instanceof Error && (error.name === 'ModelRefError' || error.name === 'EndpointError')) return { message: error.message, action: 'setUpModel' };
  return { message: `Something went wrong: ${error instanceof Error ? error.message : String(error)}. See the Repo Wiki output for details.`, action: 'retry' };
}
