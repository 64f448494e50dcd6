/** The parts of a turn, built as DOM: the answer frame, tool steps, page links, footnotes. Text goes in as text. */
import { answeredBy } from '../shared/answeredBy';
import { MAX_COPY_CHARS, type PageRef, type StepView, type TurnView } from '../shared/protocol';
import { nearLimitMessage } from '../shared/contextLimit';
import { el, icon } from './dom';
import { baseName, clip, lineRange } from './format';
import { codeCitation, isSlug } from './markdown';
import { post } from './state';

const MAX_TITLE_SHOWN = 300;
/** A step's output as stored is already capped; this bounds what one step can put in the view. */
const MAX_STEP_OUTPUT_SHOWN = 8_000;

export interface SelectionRef {
  path: string;
  startLine: number;
  endLine: number;
}

export interface AnswerParts {
  answerEl: HTMLElement;
  /** The tool steps, above the text; empty until a tool runs. */
  stepsEl: HTMLElement;
  bodyEl: HTMLElement;
  footerEl: HTMLElement;
  retryLine: HTMLElement;
}

export function answerElement(): AnswerParts {
  const stepsEl = el('div', { class: 'tool-steps-area' });
  const bodyEl = el('div', { class: 'markdown-body' });
  const retryLine = el('div', { class: 'retry-line', hidden: true });
  const footerEl = el('div', { class: 'answer-footer' });
  const answerEl = el('div', { class: 'message answer' }, [el('span', { class: 'sr-only', text: 'Answer:' }), stepsEl, bodyEl, retryLine, footerEl]);
  return { answerEl, stepsEl, bodyEl, footerEl, retryLine };
}

/** One tool step: its label and outcome; what the model read is collapsed under it. */
export function stepElement(label: string, step?: StepView): HTMLElement {
  if (!step) {
    return el('li', { class: 'tool-step running' }, [icon('loading', 'codicon-modifier-spin'), el('span', { class: 'step-label', text: clip(label, 300) })]);
  }
  const ok = step.ok === true;
  const summary = el('summary', {}, [
    icon(ok ? 'check' : 'error'),
    el('span', { class: 'step-label', text: clip(String(step.label ?? label), 300) }),
    el('span', { class: 'step-summary', text: clip(String(step.summary ?? ''), 200) }),
  ]);
  return el('li', { class: `tool-step ${ok ? 'ok' : 'failed'}` }, [
    el('details', {}, [summary, el('pre', { class: 'step-output' }, [el('code', { text: clip(String(step.output ?? ''), MAX_STEP_OUTPUT_SHOWN) })])]),
  ]);
}

/** The steps of a finished turn: a collapsed list under a one-line count. */
export function stepsElement(steps: readonly StepView[]): HTMLElement | undefined {
  if (!steps.length) return undefined;
  const failed = steps.filter((step) => !step.ok).length;
  const title = `${steps.length} tool step${steps.length === 1 ? '' : 's'}${failed ? ` (${failed} failed)` : ''}`;
  return el('details', { class: 'tool-steps' }, [
    el('summary', {}, [icon('tools'), el('span', { text: title })]),
    el('ol', {}, steps.map((step) => stepElement(step.label, step))),
  ]);
}

/** What the reader should know about how the answer was made: unverified citations, dropped history, the context limit. */
export function turnNotes(turn: Pick<TurnView, 'unverified' | 'droppedPriorTurns' | 'summarisedPriorTurns' | 'unsummarisedPriorTurns' | 'noMatch' | 'oneShot'>, nearLimit: number | undefined): HTMLElement | undefined {
  const notes: HTMLElement[] = [];
  if (turn.noMatch === true) {
    notes.push(el('div', { class: 'turn-note' }, [icon('search'), el('span', { text: 'No wiki page clearly matches this question, and nothing else was found.' })]));
  }
  const unverified = Array.isArray(turn.unverified) ? turn.unverified.map(String) : [];
  if (unverified.length) {
    notes.push(el('div', { class: 'turn-note warning' }, [
      icon('warning'),
      el('span', { text: `${unverified.length} citation${unverified.length === 1 ? '' : 's'} unverified: the model did not read ${unverified.length === 1 ? 'it' : 'them'}, and ${unverified.length === 1 ? 'it does' : 'they do'} not resolve to code now: ${clip(unverified.join(', '), 500)}` }),
    ]));
  }
  const dropped = Number(turn.droppedPriorTurns) || 0;
  if (dropped) {
    notes.push(el('div', { class: 'turn-note' }, [
      icon('info'),
      el('span', { text: `${dropped} earlier turn${dropped === 1 ? ' was' : 's were'} left out of this answer: with ${dropped === 1 ? 'it' : 'them'}, the question did not fit the model's context.` }),
    ]));
  }
  const summarised = Number(turn.summarisedPriorTurns) || 0;
  if (summarised) {
    notes.push(el('div', { class: 'turn-note' }, [
      icon('fold'),
      el('span', { text: `Earlier turns summarised: the model saw a summary of the first ${summarised} turn${summarised === 1 ? '' : 's'}, which no longer fit the prompt, and the later ones in full.` }),
    ]));
  }
  const unsummarised = Number(turn.unsummarisedPriorTurns?.count) || 0;
  if (unsummarised) {
    const why = turn.unsummarisedPriorTurns?.reason === 'offline' ? 'this answer was made offline, without a model to summarise them' : 'summarising them failed (see the Repo Wiki output)';
    notes.push(el('div', { class: 'turn-note warning' }, [
      icon('warning'),
      el('span', { text: `${unsummarised} earlier turn${unsummarised === 1 ? ' was' : 's were'} left out: ${unsummarised === 1 ? 'it' : 'they'} no longer fit the prompt and ${why}.` }),
    ]));
  }
  if (turn.oneShot === true) {
    notes.push(el('div', { class: 'turn-note' }, [icon('info'), el('span', { text: 'Answered in one shot from the pages found: this model cannot call tools, so it read no code.' })]));
  }
  if (nearLimit !== undefined) {
    notes.push(el('div', { class: 'turn-note warning' }, [
      icon('warning'),
      el('span', { text: `${nearLimitMessage(nearLimit)} Start a new conversation to keep answers complete.` }),
    ]));
  }
  return notes.length ? el('div', { class: 'turn-notes' }, notes) : undefined;
}

/** Which model answered, after which failed: the whole story in the tooltip, each failure's message included. */
export function modelBadge(model: string, attempts: TurnView['attempts']): HTMLElement {
  const failed = Array.isArray(attempts) ? attempts.filter((attempt) => attempt && typeof attempt.model === 'string').map((attempt) => ({ model: String(attempt.model), kind: String(attempt.kind), message: String(attempt.message) })) : [];
  const text = failed.length ? `answered by ${answeredBy(model, failed)}` : model;
  const title = [`Answered by ${model}`, ...failed.map((attempt) => `${attempt.model} failed (${attempt.kind}): ${clip(attempt.message, 300)}`)].join('\n');
  return el('span', { class: failed.length ? 'model-name fell-back' : 'model-name', text: clip(text, 200), title });
}

/** Token counts of an answer, with the conversation's totals in the tooltip. */
export function tokenCount(turn: Pick<TurnView, 'inputTokens' | 'outputTokens'>, totals?: { inputTokens?: number; outputTokens?: number }): HTMLElement | undefined {
  const input = Number(turn.inputTokens) || 0;
  const output = Number(turn.outputTokens) || 0;
  if (!input && !output) return undefined;
  const total = totals && (Number(totals.inputTokens) || Number(totals.outputTokens))
    ? ` This conversation so far: ${(Number(totals.inputTokens) || 0).toLocaleString()} in, ${(Number(totals.outputTokens) || 0).toLocaleString()} out.` : '';
  return el('span', { class: 'token-count', text: `${input.toLocaleString()} in · ${output.toLocaleString()} out`, title: `Tokens of this answer, all tool rounds included.${total}` });
}

export function thinking(text: string): HTMLElement {
  return el('span', { class: 'thinking' }, [icon('loading', 'codicon-modifier-spin'), el('span', { text })]);
}

/** A button opening a wiki page (stale pages marked), or plain text for a slug the host would refuse. */
export function pageLink(page: PageRef): HTMLElement {
  const slug = String(page.slug ?? '');
  const title = clip(String(page.title || slug), MAX_TITLE_SHOWN);
  if (!isSlug(slug)) return el('span', { class: 'page-ref', text: title });
  const button = el('button', {
    class: `page-link${page.stale ? ' stale' : ''}`,
    data: { slug },
    title: `${clip(String(page.title || slug), 500)} — [[${slug}]]${page.stale ? ' (stale)' : ''}`,
    attrs: { type: 'button' },
  });
  if (page.stale) button.append(icon('warning'));
  button.append(el('span', { class: 'page-title', text: title }));
  if (page.stale) button.append(el('span', { class: 'sr-only', text: '(stale)' }));
  return button;
}

export function selectionRef(selection: SelectionRef): HTMLElement {
  const label = `${baseName(String(selection.path))} ${lineRange(selection.startLine, selection.endLine)}`;
  const citation = codeCitation(String(selection.path));
  const target = citation
    ? el('button', { class: 'code-link', data: { citation }, title: `Open ${citation}`, attrs: { type: 'button' } }, [el('code', { text: clip(label, 200) })])
    : el('code', { text: clip(label, 200) });
  return el('div', { class: 'selection-ref' }, [icon('file-code'), el('span', { class: 'sr-only', text: 'About the selection' }), target]);
}

export function staleSlugs(pages: readonly PageRef[]): Set<string> {
  return new Set(pages.filter((page) => page.stale).map((page) => page.slug));
}

export function copyText(text: string): void {
  post({ type: 'copy', text: text.length > MAX_COPY_CHARS ? text.slice(0, MAX_COPY_CHARS) : text });
}

