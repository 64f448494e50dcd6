/** The conversation: messages (questions, streamed answers, errors), the selection chip and the composer. */
import { MAX_QUESTION_CHARS, type ConversationSummary, type HostToWebview, type PageRef, type SelectionChip, type TurnView, type WebviewToHost } from '../shared/protocol';
import { nearContextLimit } from '../shared/contextLimit';
import { el, icon, iconButton, textButton } from './dom';
import { clip, fullDate, newRequestId, relativeDate } from './format';
import { renderMarkdown, stableBoundary } from './markdown';
import { Composer } from './composer';
import { post, saveState, viewState } from './state';
import { modelBadge, answerElement, copyText, pageLink, selectionRef, staleSlugs, stepElement, stepsElement, thinking, tokenCount, turnNotes, type SelectionRef } from './turnParts';

type Message<T extends HostToWebview['type']> = Extract<HostToWebview, { type: T }>;
/** Omit over each member of a union, so each keeps its own fields. */
type WithoutRequestId<M> = M extends unknown ? Omit<M, 'requestId'> : never;
/** A message that starts a turn, before it gets its request id. */
type TurnRequest = WithoutRequestId<Extract<WebviewToHost, { type: 'ask' | 'retry' | 'editQuestion' }>>;

export interface HostState {
  /** False until the first `state` message arrives. */
  known: boolean;
  hasWiki: boolean;
  trusted: boolean;
  offline: boolean;
  model: string;
  /** The model's context window in tokens, for the near-the-limit warning. */
  contextWindow: number;
}

/** The footer warns once an answer's prompt filled this share of the model's context. */

/** The turn being answered. */
interface Pending {
  requestId: string;
  question: string;
  conversationId?: string;
  selection?: SelectionRef;
  text: string;
  /** `text` up to here is rendered in finished chunks; only the rest is rendered again. */
  frozen: number;
  /** Holds the rendering of `text` from `frozen` on. */
  tailEl: HTMLElement;
  pages: PageRef[];
  offline?: boolean;
  stopping: boolean;
  turnEl: HTMLElement;
  answerEl: HTMLElement;
  /** The tool steps as they run, by call id. */
  steps: Map<string, HTMLElement>;
  stepsEl: HTMLElement;
  bodyEl: HTMLElement;
  footerEl: HTMLElement;
  retryLine: HTMLElement;
  /** Set when this is an edited question: asked in a fork of that conversation, before that turn. */
  edit?: EditTarget;
  /** Set when this answers the last question again (Retry): that turn, hidden until the new answer is in. */
  replaces?: HTMLElement;
}

/** The question an edit replaces: the fork holds the turns before it. */
interface EditTarget {
  conversationId: string;
  turnIndex: number;
  /** The conversation edited, which the view shows again if the edit fails (the host made no fork). */
  original?: ConversationSummary;
}

/** A question whose answer failed; it was never stored, so "Retry" asks it again. */
interface Failed {
  turnEl: HTMLElement;
  question: string;
  conversationId?: string;
  edit?: EditTarget;
  /** A retry of the last question failed: its answer is still there, and "Retry" tries again. */
  retry?: boolean;
}

/** Long questions and titles are shown in full up to here. */
const MAX_QUESTION_SHOWN = 100_000;
/** While streaming, finished blocks are rendered once the unfinished part grows past this. */
const FREEZE_CHARS = 8_000;
/** Answers longer than this skip layout for blocks out of view. */
const LARGE_ANSWER_CHARS = 20_000;

export class ChatPanel {
  readonly root: HTMLElement;
  readonly messages: HTMLElement;
  private readonly composer: Composer;

  host: HostState = { known: false, hasWiki: true, trusted: true, offline: false, model: '', contextWindow: 0 };
  conversation: ConversationSummary | null = null;
  private turns: TurnView[] = [];
  pending?: Pending;
  private failed?: Failed;
  /** What a `retrying` message said, while it applies. */
  retrying?: string;
  private retryTimer?: number;

  /** Applied to the next `conversation` for this id (restoring the view after it was hidden). */
  private restore?: { conversationId: string; scrollTop: number };
  /** Scrolled to after the next `conversation` (a search hit). */
  private revealTurn?: { conversationId: string; turnIndex: number };

  /** Turns checked for "Save selected turns" (0-based), while choosing them. */
  private selecting?: Set<number>;
  private readonly selectBar: HTMLElement;

  private renderQueued = false;
  private nextRenderAt = 0;
  private scrollTimer?: number;

  /** `changed` is called whenever the toolbar or status line may need updating. */
  constructor(private readonly changed: () => void, private readonly notify: (message: string) => void) {
    this.messages = el('div', { id: 'messages', attrs: { role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation', tabindex: '0' } });
    this.composer = new Composer({ submit: () => this.submit(), stop: () => this.stop(), changed: () => this.updateComposer() });
    this.selectBar = el('div', { class: 'select-bar', hidden: true, attrs: { role: 'toolbar', 'aria-label': 'Save selected turns' } });
    this.root = el('section', { id: 'chat-panel', class: 'panel', attrs: { 'aria-label': 'Chat' } }, [this.messages, this.selectBar, this.composer.element]);
    this.messages.addEventListener('scroll', () => {
      if (this.scrollTimer !== undefined) return;
      this.scrollTimer = window.setTimeout(() => {
        this.scrollTimer = undefined;
        // A hidden list reads (and may report scrolling to) 0: keep the position it had.
        if (!this.root.hidden) saveState({ scrollTop: this.messages.scrollTop });
      }, 200);
    });
    this.renderAll();
    this.updateComposer();
  }

  // ---- restoring --------------------------------------------------------------------------

  restoreDraft(draft: string, chip: SelectionChip | undefined): void {
    this.composer.restore(draft, chip);
    this.updateComposer();
  }

  /** Asks the host for the conversation the view showed before it was hidden. */
  reopen(conversationId: string, scrollTop: number): void {
    this.restore = { conversationId, scrollTop };
    post({ type: 'openConversation', conversationId });
  }

  /** Opens a conversation (from the history), optionally scrolling to one turn. */
  open(conversationId: string, turnIndex?: number): void {
    this.revealTurn = turnIndex === undefined ? undefined : { conversationId, turnIndex };
    post({ type: 'openConversation', conversationId });
  }

  // ---- host messages ----------------------------------------------------------------------

  setHostState(state: Message<'state'>): void {
    this.host = { known: true, hasWiki: !!state.hasWiki, trusted: !!state.trusted, offline: !!state.offline, model: String(state.model ?? ''), contextWindow: Number(state.contextWindow) || 0 };
    if (!this.turns.length && !this.pending && !this.failed) this.renderAll();
    this.updateComposer();
  }

  showConversation(message: Message<'conversation'>): void {
    if (this.pending) {
      // Another conversation replaces the one being answered: stop it.
      post({ type: 'stop', requestId: this.pending.requestId });
      this.endPending();
    }
    this.failed = undefined;
    this.endSelecting();
    this.conversation = message.conversation ?? null;
    this.turns = Array.isArray(message.turns) ? message.turns : [];
    saveState({ conversationId: this.conversation?.id });
    this.renderAll();

    const id = this.conversation?.id;
    if (this.root.hidden) {
      // Hidden elements do not scroll: remember where to be when the chat is shown again.
      saveState({ scrollTop: this.restore && this.restore.conversationId === id ? this.restore.scrollTop : 1e9 });
    } else if (this.restore && this.restore.conversationId === id) {
      this.messages.scrollTop = this.restore.scrollTop;
    } else if (this.revealTurn && this.revealTurn.conversationId === id) {
      const target = this.messages.querySelector<HTMLElement>(`.turn[data-index="${this.revealTurn.turnIndex}"]`);
      if (target) {
        target.scrollIntoView({ block: 'start' });
        target.classList.add('flash');
        window.setTimeout(() => target.classList.remove('flash'), 1500);
      } else this.scrollToBottom();
    } else {
      this.scrollToBottom();
    }
    this.restore = undefined;
    this.revealTurn = undefined;
    this.changed();
  }

  onConversations(items: readonly ConversationSummary[]): void {
    const current = this.conversation && items.find((item) => item.id === this.conversation?.id);
    if (current) {
      this.conversation = current;
      this.renderFiledNote();
      this.changed();
    }
  }

  onTurnStarted(message: Message<'turnStarted'>): void {
    const pending = this.current(message.requestId);
    if (!pending) return;
    pending.conversationId = message.conversationId;
    if (this.conversation?.id !== message.conversationId) {
      this.conversation = { id: message.conversationId, title: clip(pending.question.replace(/\s+/g, ' ').trim(), 80), updated: new Date().toISOString(), turnCount: 0 };
    }
    saveState({ conversationId: message.conversationId });
    this.changed();
  }

  onContext(message: Message<'context'>): void {
    const pending = this.current(message.requestId);
    if (!pending) return;
    pending.pages = Array.isArray(message.pages) ? message.pages : [];
    pending.offline = !!message.offline;
    this.fillFooter(pending.footerEl, pending.pages, { model: pending.offline ? 'offline' : this.host.model, offline: pending.offline, text: () => pending.text });
    if (!pending.text) pending.bodyEl.replaceChildren(thinking(pending.offline ? 'Gathering passages from the wiki…' : 'Writing…'));
  }

  onDelta(message: Message<'delta'>): void {
    const pending = this.current(message.requestId);
    if (!pending || typeof message.text !== 'string') return;
    pending.text += message.text;
    if (this.retrying) this.clearRetrying();
    this.scheduleRender();
  }

  /** A tool call started (a spinner line) or finished (its outcome, with what it read collapsed). */
  onToolStep(message: Message<'toolStep'>): void {
    const pending = this.current(message.requestId);
    if (!pending || typeof message.id !== 'string') return;
    let list = pending.stepsEl.querySelector('ol');
    if (!list) {
      list = el('ol', { class: 'tool-steps live', attrs: { 'aria-label': 'Tool steps' } });
      pending.stepsEl.append(list);
    }
    const line = stepElement(String(message.label ?? ''), message.step);
    const previous = pending.steps.get(message.id);
    if (previous) previous.replaceWith(line);
    else list.append(line);
    pending.steps.set(message.id, line);
    if (!pending.text) pending.bodyEl.replaceChildren(thinking('Reading…'));
    if (this.nearBottom()) this.scrollToBottom();
  }

  onRetrying(message: Message<'retrying'>): void {
    const pending = this.current(message.requestId);
    if (!pending) return;
    const reason = message.status === 429 ? 'Rate limited' : message.status === 529 || message.status === 503 ? 'The model is overloaded' : message.status ? `The model service failed (HTTP ${message.status})` : 'Connection problem';
    let seconds = Math.max(1, Math.ceil((Number(message.delayMs) || 0) / 1000));
    const text = () => `${reason} — retrying in ${seconds}s (attempt ${message.attempt})`;
    this.retrying = text();
    pending.retryLine.hidden = false;
    pending.retryLine.replaceChildren(icon('watch'), el('span', { text: text() }));
    clearInterval(this.retryTimer);
    this.retryTimer = window.setInterval(() => {
      seconds = Math.max(0, seconds - 1);
      pending.retryLine.lastElementChild!.textContent = seconds ? text() : `${reason} — retrying now (attempt ${message.attempt})`;
      if (!seconds) clearInterval(this.retryTimer);
    }, 1000);
    this.changed();
  }

  onTurnDone(message: Message<'turnDone'>): void {
    const pending = this.current(message.requestId);
    if (!pending) {
      // A turn of this conversation that the view stopped following (it was hidden and restored,
      // or the conversation was reopened meanwhile) is stored now: show it.
      const turn = message.turn;
      if (!this.pending && !this.failed && this.conversation && message.conversation?.id === this.conversation.id && turn?.index === this.turns.length) {
        const stick = this.nearBottom();
        if (!this.turns.length) this.messages.replaceChildren();
        this.conversation = message.conversation;
        this.turns.push(turn);
        this.messages.append(this.turnElement(turn));
        this.updateRetryButtons();
        if (stick) this.scrollToBottom();
        this.changed();
      }
      return;
    }
    const stickToBottom = this.nearBottom();
    this.endPending();
    this.conversation = message.conversation;
    if (pending.replaces) {
      // Retry: the new answer takes the old one's place; the old one is a sibling now ("1 / 2").
      pending.replaces.remove();
      this.turns[this.turns.length - 1] = message.turn;
    } else this.turns.push(message.turn);
    pending.turnEl.replaceWith(this.turnElement(message.turn));
    saveState({ conversationId: message.conversation.id });
    this.updateRetryButtons();
    if (stickToBottom) this.scrollToBottom();
    this.changed();
  }

  onTurnFailed(message: Message<'turnFailed'>): void {
    const pending = this.current(message.requestId);
    if (!pending) return;
    this.endPending();
    if (pending.text) {
      pending.answerEl.classList.add('incomplete');
      this.renderPendingBody(pending);
    } else pending.answerEl.remove();
    pending.turnEl.classList.add('failed');
    if (pending.replaces) pending.replaces.hidden = false; // nothing was stored: the answer it had stays
    const failed: Failed = { turnEl: pending.turnEl, question: pending.question, conversationId: pending.conversationId, edit: pending.edit, retry: !!pending.replaces };
    // The fork of a failed edit is gone: the toolbar acts on the original again.
    if (pending.edit?.original) this.conversation = pending.edit.original;
    this.failed = failed;
    const action = message.action === 'setUpModel'
      ? textButton('Set up a model', { class: 'error-action secondary' }, 'key')
      : message.action === 'retry' ? textButton('Retry', { class: 'error-action secondary' }, 'refresh') : undefined;
    action?.addEventListener('click', () => {
      if (message.action === 'setUpModel') post({ type: 'runCommand', command: 'repoWiki.setUpModel' });
      else this.retryFailed(failed);
    });
    const error = el('div', { class: 'turn-error', attrs: { role: 'alert' } }, [
      icon('error'),
      el('div', { class: 'turn-error-text' }, [el('span', { text: clip(String(message.message ?? 'The answer failed.'), 2000) }), action]),
    ]);
    pending.turnEl.querySelector('.message.question')?.after(error);
    this.updateRetryButtons();
    this.scrollToBottom();
    this.changed();
  }

  onSelection(message: Message<'selection'>): void {
    const chip = message.chip;
    if (!chip || typeof chip.id !== 'string') return;
    this.composer.attach(chip, message.question);
    this.updateComposer();
    this.focusInput();
  }

  onFiled(message: Message<'filed'>): void {
    if (this.conversation?.id === message.conversationId) {
      this.conversation = { ...this.conversation, filedPage: message.slug };
      this.renderFiledNote();
      this.changed();
    }
  }

  onDeleted(conversationId: string): void {
    if (this.conversation?.id !== conversationId) return;
    if (this.pending) {
      post({ type: 'stop', requestId: this.pending.requestId });
      this.endPending();
    }
    this.conversation = null;
    this.turns = [];
    this.failed = undefined;
    this.endSelecting();
    saveState({ conversationId: undefined, scrollTop: 0 });
    this.renderAll();
    this.changed();
  }

  // ---- user actions -----------------------------------------------------------------------

  submit(): void {
    if (this.pending || !this.host.hasWiki) return;
    const question = this.composer.text;
    if (!question) return;
    if (question.length > MAX_QUESTION_CHARS) {
      this.notify(`A question can be at most ${MAX_QUESTION_CHARS.toLocaleString()} characters; this one has ${question.length.toLocaleString()}.`);
      return;
    }
    const chip = this.composer.chip;
    // After a failed edit the view shows the turns before the edited question: a question asked
    // now takes its place, in a fork, as the edit would have. An edit carries no new selection, so
    // one asked with a selection starts a new conversation rather than continue the original.
    const failedEdit = this.failed?.edit;
    this.removeFailed();
    if (failedEdit && !chip) this.start(question, { type: 'editQuestion', conversationId: failedEdit.conversationId, turnIndex: failedEdit.turnIndex, question });
    else this.start(question, { type: 'ask', question, conversationId: failedEdit ? undefined : this.conversation?.id, selectionId: chip?.id }, chip && { path: chip.path, startLine: chip.startLine, endLine: chip.endLine });
    this.composer.clear();
    this.updateComposer();
  }

  stop(): void {
    const pending = this.pending;
    if (!pending || pending.stopping) return;
    pending.stopping = true;
    post({ type: 'stop', requestId: pending.requestId });
    this.updateComposer();
    this.changed();
  }

  /** Answers the last question of the conversation again; the host keeps both answers. */
  retryLast(): void {
    const last = this.turns.at(-1);
    if (this.pending || !this.conversation || !last) return;
    this.removeFailed();
    this.start(last.question, { type: 'retry', conversationId: this.conversation.id }, last.selection);
  }

  /** The chat panel was shown again: hidden elements lose their scroll position. */
  restoreScroll(): void {
    this.messages.scrollTop = viewState().scrollTop;
  }

  focusInput(): void {
    this.composer.focus();
  }

  get hasTurns(): boolean {
    return this.turns.length > 0;
  }

  // ---- turns ------------------------------------------------------------------------------

  private start(question: string, message: TurnRequest, selection?: SelectionRef): void {
    const requestId = newRequestId();
    post({ ...message, requestId } as WebviewToHost);
    if (!this.turns.length) this.messages.replaceChildren(); // the welcome goes
    const turnEl = el('div', { class: 'turn pending' });
    turnEl.append(this.questionElement(question, selection));
    const { answerEl, stepsEl, bodyEl, footerEl, retryLine } = answerElement();
    answerEl.setAttribute('aria-busy', 'true');
    bodyEl.append(thinking('Searching the wiki…'));
    turnEl.append(answerEl);
    this.messages.append(turnEl);
    const tailEl = el('div', { class: 'md-tail' });
    const edit = message.type === 'editQuestion' ? { conversationId: message.conversationId, turnIndex: message.turnIndex, original: this.conversation ?? undefined } : undefined;
    const replaces = message.type === 'retry' ? this.lastTurnElement() : undefined;
    if (replaces) replaces.hidden = true;
    this.pending = { requestId, question, conversationId: message.conversationId, selection, text: '', frozen: 0, tailEl, pages: [], stopping: false, turnEl, answerEl, steps: new Map(), stepsEl, bodyEl, footerEl, retryLine, edit, replaces };
    this.updateRetryButtons();
    this.updateComposer();
    this.scrollToBottom();
    this.changed();
  }

  private retryFailed(failed: Failed): void {
    if (this.pending) return;
    if (failed.retry) return this.retryLast();
    this.removeFailed();
    // A failed edit left no fork behind: edit the same question of the original again.
    if (failed.edit) this.start(failed.question, { type: 'editQuestion', conversationId: failed.edit.conversationId, turnIndex: failed.edit.turnIndex, question: failed.question });
    else this.start(failed.question, { type: 'ask', question: failed.question, conversationId: failed.conversationId ?? this.conversation?.id });
  }

  /**
   * Asks an edited question `turnIndex` in a fork: the view shows the turns before it and the new
   * answer; the host keeps the original conversation as it was.
   */
  private sendEdit(turn: TurnView, question: string): void {
    const conversationId = this.conversation?.id;
    if (this.pending || !conversationId || !this.host.hasWiki) return;
    if (question.length > MAX_QUESTION_CHARS) {
      this.notify(`A question can be at most ${MAX_QUESTION_CHARS.toLocaleString()} characters; this one has ${question.length.toLocaleString()}.`);
      return;
    }
    this.removeFailed();
    this.endSelecting();
    this.turns = this.turns.slice(0, turn.index);
    this.renderAll();
    this.start(question, { type: 'editQuestion', conversationId, turnIndex: turn.index, question }, turn.selection);
  }

  /** Swaps a question for a text box; Enter asks the edit in a fork, Escape puts the question back. */
  private editQuestion(turn: TurnView, questionEl: HTMLElement): void {
    if (this.pending) return;
    const original = String(turn.question ?? '');
    const input = el('textarea', { class: 'edit-question', attrs: { 'aria-label': `Edit question ${turn.index + 1}; Enter asks it in a fork, Escape cancels`, rows: '3', maxlength: String(MAX_QUESTION_CHARS) } });
    input.value = original;
    const send = textButton('Ask in a fork', { class: 'edit-send', title: 'Forks the conversation before this question and asks the edited one there; the original stays as it is' }, 'repo-forked');
    const cancel = textButton('Cancel', { class: 'edit-cancel secondary' });
    const editor = el('div', { class: 'message question editing' }, [input, el('div', { class: 'edit-actions' }, [send, cancel])]);
    const close = () => {
      editor.replaceWith(questionEl);
      questionEl.querySelector<HTMLElement>('.edit')?.focus();
    };
    const submit = () => {
      const question = input.value.trim();
      if (!question) return;
      if (question === original.trim()) {
        close();
        return;
      }
      this.sendEdit(turn, question);
    };
    send.addEventListener('click', submit);
    cancel.addEventListener('click', close);
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        submit();
      } else if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        close();
      }
    });
    questionEl.replaceWith(editor);
    input.focus();
  }

  // ---- saving selected turns --------------------------------------------------------------

  /** Shows a checkbox on every turn, `first` checked, and the bar that saves them. */
  private startSelecting(first: number): void {
    if (this.pending || !this.conversation) return;
    this.selecting = new Set([first]);
    this.messages.classList.add('selecting');
    for (const box of Array.from(this.messages.querySelectorAll<HTMLInputElement>('.turn-check'))) box.checked = Number(box.dataset.index) === first;
    this.renderSelectBar();
    this.messages.querySelector<HTMLInputElement>(`.turn-check[data-index="${first}"]`)?.focus();
  }

  private endSelecting(): void {
    if (!this.selecting) return;
    this.selecting = undefined;
    this.messages.classList.remove('selecting');
    this.selectBar.hidden = true;
  }

  private toggleTurn(index: number, checked: boolean): void {
    if (!this.selecting) return;
    if (checked) this.selecting.add(index);
    else this.selecting.delete(index);
    this.renderSelectBar();
  }

  private renderSelectBar(): void {
    const count = this.selecting?.size ?? 0;
    const save = textButton('Save to wiki', { class: 'select-save', title: 'Save the checked turns as a page of their own; saving the same turns again updates it' }, 'save');
    save.disabled = count === 0 || !this.host.trusted;
    save.addEventListener('click', () => this.saveSelected());
    const cancel = textButton('Cancel', { class: 'select-cancel secondary' });
    cancel.addEventListener('click', () => this.endSelecting());
    this.selectBar.replaceChildren(el('span', { class: 'select-count', text: `${count} turn${count === 1 ? '' : 's'} selected`, attrs: { 'aria-live': 'polite' } }), save, cancel);
    this.selectBar.hidden = false;
  }

  private saveSelected(): void {
    const conversationId = this.conversation?.id;
    const indexes = [...(this.selecting ?? [])].sort((a, b) => a - b);
    if (!conversationId || !indexes.length) return;
    if (indexes.some((index, i) => i > 0 && index !== indexes[i - 1] + 1)) {
      this.notify('Select turns next to each other: a page holds one run of a conversation.');
      return;
    }
    post({ type: 'saveTurns', conversationId, turnIndexes: indexes });
    this.endSelecting();
  }

  private removeFailed(): void {
    this.failed?.turnEl.remove();
    this.failed = undefined;
  }

  private current(requestId: string): Pending | undefined {
    return this.pending && this.pending.requestId === requestId ? this.pending : undefined;
  }

  private endPending(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.clearRetrying();
    pending.answerEl.removeAttribute('aria-busy');
    pending.turnEl.classList.remove('pending');
    const hadFocus = this.composer.stopHasFocus();
    this.updateComposer();
    if (hadFocus) this.composer.question.focus();
  }

  private clearRetrying(): void {
    clearInterval(this.retryTimer);
    this.retrying = undefined;
    if (this.pending) this.pending.retryLine.hidden = true;
    this.changed();
  }

  /** Re-renders the streaming answer at most once a frame, and less often when rendering gets slow. */
  private scheduleRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    const frame = () => requestAnimationFrame(() => {
      this.renderQueued = false;
      if (this.pending) this.renderPendingBody(this.pending);
    });
    const wait = this.nextRenderAt - performance.now();
    if (wait > 0) window.setTimeout(frame, wait);
    else frame();
  }

  private renderPendingBody(pending: Pending): void {
    const stick = this.nearBottom();
    const started = performance.now();
    const stale = staleSlugs(pending.pages);
    if (!pending.tailEl.isConnected) pending.bodyEl.replaceChildren(pending.tailEl); // the "thinking" line goes
    if (pending.text.length - pending.frozen > FREEZE_CHARS) {
      const cut = stableBoundary(pending.text, pending.frozen);
      if (cut > pending.frozen) {
        const chunk = el('div', { class: 'md-chunk' });
        chunk.innerHTML = renderMarkdown(pending.text.slice(pending.frozen, cut), { stale });
        pending.tailEl.before(chunk);
        pending.frozen = cut;
      }
    }
    pending.tailEl.innerHTML = renderMarkdown(pending.text.slice(pending.frozen), { stale });
    const cost = performance.now() - started;
    // A big answer takes long to render: leave the view time to breathe between renders.
    this.nextRenderAt = performance.now() + Math.min(1000, cost * 4);
    if (stick) this.scrollToBottom();
  }

  private renderAll(): void {
    this.messages.replaceChildren();
    if (!this.turns.length && !this.pending) {
      this.messages.append(this.welcome());
      return;
    }
    this.renderFiledNote();
    for (const turn of this.turns) this.messages.append(this.turnElement(turn));
    this.updateRetryButtons();
  }

  private renderFiledNote(): void {
    this.messages.querySelector('.filed-note')?.remove();
    this.messages.querySelector('.fork-note')?.remove();
    if (!this.turns.length) return;
    const slug = this.conversation?.filedPage;
    if (slug) this.messages.prepend(el('div', { class: 'filed-note' }, [icon('book'), el('span', { text: 'Saved to the wiki as ' }), pageLink({ slug, title: `[[${slug}]]`, stale: false })]));
    const parent = this.conversation?.parentConversationId;
    if (typeof parent === 'string') {
      const at = Number(this.conversation?.forkedAtTurn) || 0;
      const openParent = textButton('Open the original', { class: 'link-button' });
      openParent.addEventListener('click', () => this.open(parent));
      this.messages.prepend(el('div', { class: 'fork-note' }, [icon('repo-forked'), el('span', { text: at ? `A fork: it shares its first ${at === 1 ? 'turn' : `${at} turns`} with the original.` : 'A fork: it went another way from the first question.' }), openParent]));
    }
  }

  private welcome(): HTMLElement {
    if (this.host.known && !this.host.hasWiki) {
      const init = this.host.trusted ? textButton('Initialise wiki', { id: 'init-wiki' }, 'book') : undefined;
      init?.addEventListener('click', () => post({ type: 'runCommand', command: 'repoWiki.init' }));
      return el('div', { class: 'welcome' }, [
        el('h2', { text: 'This workspace has no wiki yet' }),
        el('p', { text: 'Repo Wiki keeps an LLM-maintained wiki in .wiki/, committed with your code. Chat answers questions from it.' }),
        this.host.trusted ? init : el('p', { text: 'This workspace is in Restricted Mode: trust it to create a wiki.' }),
      ]);
    }
    return el('div', { class: 'welcome' }, [
      icon('comment-discussion', 'welcome-icon'),
      el('h2', { text: 'Ask your wiki' }),
      el('p', { text: 'Answers are grounded in the pages in .wiki/ and cite them: page links open the page, code citations open the code.' }),
      el('p', { text: 'To ask about code, select it in an editor and run "Repo Wiki: Ask about selection".' }),
    ]);
  }

  private turnElement(turn: TurnView): HTMLElement {
    const turnEl = el('div', { class: 'turn', data: { index: String(turn.index) } });
    const check = el('input', { class: 'turn-check', data: { index: String(turn.index) }, attrs: { type: 'checkbox' } });
    check.checked = !!this.selecting?.has(turn.index);
    check.addEventListener('change', () => this.toggleTurn(turn.index, check.checked));
    turnEl.append(el('label', { class: 'turn-select' }, [check, el('span', { text: `Turn ${turn.index + 1}` })]));
    const questionEl = this.questionElement(String(turn.question ?? ''), turn.selection);
    const edit = iconButton('edit', 'Edit: ask this question again, changed, in a fork', { class: 'edit' });
    edit.addEventListener('click', () => this.editQuestion(turn, questionEl));
    const select = iconButton('checklist', 'Select turns to save to the wiki', { class: 'select-turns' });
    select.addEventListener('click', () => this.startSelecting(turn.index));
    questionEl.querySelector('.message-actions')?.prepend(edit, select);
    turnEl.append(questionEl);
    const pages = Array.isArray(turn.pages) ? turn.pages : [];
    const { answerEl, stepsEl, bodyEl, footerEl } = answerElement();
    const answer = String(turn.answer ?? '');
    const steps = stepsElement(Array.isArray(turn.steps) ? turn.steps : []);
    if (steps) stepsEl.append(steps);
    bodyEl.classList.toggle('large', answer.length > LARGE_ANSWER_CHARS);
    const unverified = new Set(Array.isArray(turn.unverified) ? turn.unverified.map(String) : []);
    bodyEl.innerHTML = renderMarkdown(answer, { stale: staleSlugs(pages), unverified });
    this.fillFooter(footerEl, pages, { model: String(turn.model ?? ''), offline: !!turn.offline, text: () => answer, created: turn.created, turn });
    turnEl.append(answerEl);
    return turnEl;
  }

  private questionElement(question: string, selection?: SelectionRef): HTMLElement {
    const copy = iconButton('copy', 'Copy question', { class: 'copy' });
    copy.addEventListener('click', () => copyText(question));
    return el('div', { class: 'message question' }, [
      el('span', { class: 'sr-only', text: 'You asked:' }),
      selection && selectionRef(selection),
      el('div', { class: 'question-text', text: clip(question, MAX_QUESTION_SHOWN) }),
      el('div', { class: 'message-actions' }, [copy]),
    ]);
  }

  private fillFooter(footer: HTMLElement, pages: readonly PageRef[], info: { model: string; offline: boolean; text: () => string; created?: string; turn?: TurnView }): void {
    const children: HTMLElement[] = [];
    const notes = info.turn && turnNotes(info.turn, this.contextShare(info.turn));
    if (notes) children.push(notes);
    if (pages.length) {
      children.push(el('div', { class: 'pages-used' }, [el('span', { class: 'footer-label', text: 'Pages used:' }), ...pages.map(pageLink)]));
    }
    const badge = info.offline
      ? el('span', { class: 'offline-badge', title: 'Answered from wiki search alone; nothing was sent to a model.' }, [icon('circle-slash'), el('span', { text: 'Offline answer' })])
      : info.model ? modelBadge(info.model, info.turn?.attempts) : undefined;
    const copy = iconButton('copy', 'Copy answer', { class: 'copy' });
    copy.addEventListener('click', () => copyText(info.text()));
    const retry = iconButton('refresh', 'Retry: answer the last question again, keeping this answer too', { class: 'retry', hidden: true });
    retry.addEventListener('click', () => this.retryLast());
    children.push(el('div', { class: 'footer-meta' }, [
      info.turn && this.siblingSwitcher(info.turn),
      badge,
      info.created ? el('span', { class: 'turn-date', text: relativeDate(info.created), title: fullDate(info.created) }) : undefined,
      info.turn && tokenCount(info.turn, this.conversation ?? undefined),
      el('div', { class: 'message-actions' }, [copy, retry]),
    ]));
    footer.replaceChildren(...children);
    this.updateRetryButtons();
  }

  /** The last answered turn's element (not one being answered or failed). */
  private lastTurnElement(): HTMLElement | undefined {
    const turns = this.messages.querySelectorAll<HTMLElement>('.turn:not(.pending):not(.failed)');
    return turns[turns.length - 1];
  }

  /** "‹ 2 / 3 ›" between the answers Retry made; the conversation goes on from the one shown. */
  private siblingSwitcher(turn: TurnView): HTMLElement | undefined {
    const count = Number(turn.siblingCount);
    const shown = Number(turn.sibling ?? 0);
    const conversationId = this.conversation?.id;
    if (!conversationId || !Number.isInteger(count) || count < 2 || !Number.isInteger(shown)) return undefined;
    const show = (sibling: number) => () => {
      if (!this.pending) post({ type: 'showSibling', conversationId, turnIndex: turn.index, sibling });
    };
    const previous = iconButton('chevron-left', 'Previous answer', { class: 'sibling-previous' });
    const next = iconButton('chevron-right', 'Next answer', { class: 'sibling-next' });
    previous.disabled = shown <= 0;
    next.disabled = shown >= count - 1;
    previous.addEventListener('click', show(shown - 1));
    next.addEventListener('click', show(shown + 1));
    return el('div', { class: 'siblings', attrs: { role: 'group', 'aria-label': `Answer ${shown + 1} of ${count}; the conversation goes on from the one shown` } }, [
      previous, el('span', { class: 'sibling-position', text: `${shown + 1} / ${count}` }), next,
    ]);
  }

  /** How full the model's context was for this answer, when that is near the limit. */
  private contextShare(turn: TurnView): number | undefined {
    return nearContextLimit(Number(turn.promptTokens), Number(turn.contextWindow) || this.host.contextWindow);
  }

  /** Only the last answered turn offers Retry, and not while an answer streams. */
  private updateRetryButtons(): void {
    const turns = this.messages.querySelectorAll<HTMLElement>('.turn');
    const last = turns[turns.length - 1];
    for (const button of Array.from(this.messages.querySelectorAll<HTMLButtonElement>('.retry'))) {
      button.hidden = !(last && !this.pending && this.conversation && button.closest('.turn') === last && !last.classList.contains('failed'));
    }
  }

  // ---- composer ---------------------------------------------------------------------------

  private updateComposer(): void {
    this.composer.update({ busy: !!this.pending, hasWiki: this.host.hasWiki, stopping: !!this.pending?.stopping });
  }

  private nearBottom(): boolean {
    const m = this.messages;
    return m.scrollHeight - m.scrollTop - m.clientHeight < 48;
  }

  private scrollToBottom(): void {
    this.messages.scrollTop = this.messages.scrollHeight;
  }
}
