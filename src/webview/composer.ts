/** The composer: the question box, Send and Stop, and the code selection attached to the next question. */
import { MAX_QUESTION_CHARS, type SelectionChip } from '../shared/protocol';
import { el, icon, iconButton } from './dom';
import { baseName, clip, lineRange } from './format';
import { post, saveState } from './state';
import { pageLink } from './turnParts';

export class Composer {
  readonly element: HTMLElement;
  readonly question: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly chipArea: HTMLElement;
  chip?: SelectionChip;

  constructor(actions: { submit(): void; stop(): void; changed(): void }) {
    this.chipArea = el('div', { id: 'selection-chips' });
    this.question = el('textarea', {
      id: 'question',
      attrs: { rows: '1', placeholder: 'Ask about this codebase…', 'aria-label': 'Question (Enter to send, Shift+Enter for a new line)' },
    });
    this.sendButton = iconButton('send', 'Send (Enter)', { id: 'send' });
    this.stopButton = iconButton('debug-stop', 'Stop answering (Escape)', { id: 'stop', hidden: true });
    this.element = el('div', { class: 'composer' }, [
      this.chipArea,
      el('div', { class: 'input-box' }, [this.question, el('div', { class: 'input-actions' }, [this.sendButton, this.stopButton])]),
    ]);
    this.sendButton.addEventListener('click', () => actions.submit());
    this.stopButton.addEventListener('click', () => actions.stop());
    this.question.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey && !event.isComposing) {
        event.preventDefault();
        actions.submit();
      }
    });
    this.question.addEventListener('input', () => {
      actions.changed();
      saveState({ draft: this.question.value });
    });
  }

  /** The trimmed question to send, or '' when there is none. */
  get text(): string {
    return this.question.value.trim();
  }

  /** Puts back the draft and the attached selection after the view was hidden or reloaded. */
  restore(draft: string, chip: SelectionChip | undefined): void {
    this.question.value = draft;
    if (chip) this.setChip(chip);
  }

  /** A selection from "Ask about selection": it replaces any earlier one, and fills an empty box with its question. */
  attach(chip: SelectionChip, question: unknown): void {
    if (this.chip && this.chip.id !== chip.id) post({ type: 'removeSelection', selectionId: this.chip.id });
    this.setChip(chip);
    if (!this.question.value.trim() && typeof question === 'string') {
      this.question.value = question;
      saveState({ draft: question });
    }
  }

  /** After sending: the box and the selection are cleared. */
  clear(): void {
    this.question.value = '';
    this.chip = undefined;
    this.renderChip();
    saveState({ draft: '', chip: undefined });
  }

  /** Send or Stop, and what the box accepts, for the current state. */
  update(state: { busy: boolean; hasWiki: boolean; stopping: boolean }): void {
    const tooLong = this.question.value.length > MAX_QUESTION_CHARS;
    this.question.disabled = !state.hasWiki;
    this.question.placeholder = state.hasWiki ? 'Ask about this codebase…' : 'Initialise the wiki to chat with it';
    this.question.toggleAttribute('aria-invalid', tooLong);
    this.question.classList.toggle('too-long', tooLong);
    this.sendButton.hidden = state.busy;
    this.stopButton.hidden = !state.busy;
    this.stopButton.disabled = state.stopping;
    this.sendButton.disabled = state.busy || !state.hasWiki || !this.question.value.trim() || tooLong;
    this.sendButton.title = tooLong ? `Too long: at most ${MAX_QUESTION_CHARS.toLocaleString()} characters` : 'Send (Enter)';
  }

  /** Stop had the focus: it is about to hide, and the focus goes back to the question. */
  stopHasFocus(): boolean {
    return document.activeElement === this.stopButton;
  }

  focus(): void {
    this.question.focus();
    const end = this.question.value.length;
    this.question.setSelectionRange(end, end);
  }

  private setChip(chip: SelectionChip): void {
    this.chip = chip;
    saveState({ chip });
    this.renderChip();
  }

  private renderChip(): void {
    const chip = this.chip;
    if (!chip) {
      this.chipArea.replaceChildren();
      return;
    }
    const remove = iconButton('close', 'Remove selection', { class: 'chip-remove' });
    remove.addEventListener('click', () => {
      post({ type: 'removeSelection', selectionId: chip.id });
      this.chip = undefined;
      saveState({ chip: undefined });
      this.renderChip();
      this.focus();
    });
    const pages = Array.isArray(chip.pages) ? chip.pages : [];
    const shown = pages.slice(0, 3);
    this.chipArea.replaceChildren(el('div', { class: 'selection-chip', attrs: { role: 'group', 'aria-label': 'Selection attached to the next question' } }, [
      el('div', { class: 'chip-row' }, [
        icon('file-code'),
        el('span', { class: 'chip-file', text: clip(baseName(String(chip.path)), 120), title: clip(String(chip.path), 1000) }),
        el('span', { class: 'chip-range', text: lineRange(chip.startLine, chip.endLine) }),
        chip.language ? el('span', { class: 'chip-lang', text: clip(String(chip.language), 30) }) : undefined,
        chip.truncated ? el('span', { class: 'chip-truncated', text: 'truncated', title: 'The selection is long: only its first part is sent.' }) : undefined,
        remove,
      ]),
      shown.length ? el('div', { class: 'chip-pages' }, [
        el('span', { class: 'footer-label', text: 'Cited by' }),
        ...shown.map(pageLink),
        pages.length > shown.length ? el('span', { class: 'chip-more', text: `+${pages.length - shown.length} more` }) : undefined,
      ]) : undefined,
      chip.preview ? el('details', { class: 'chip-preview' }, [
        el('summary', { text: 'Preview' }),
        el('pre', {}, [el('code', { text: clip(String(chip.preview), 5000) })]),
      ]) : undefined,
    ]));
  }
}
