import type { FailedModel } from './answeredBy';
/** Messages between the chat webview and the extension host. Both sides validate what they receive. */

import { isTag } from './tags';

/** The only commands a webview may ask for; it can never name an arbitrary command. */
export const ALLOWED_COMMANDS = ['repoWiki.init', 'repoWiki.newPage', 'repoWiki.lint', 'repoWiki.setApiKey', 'repoWiki.setUpModel', 'workbench.trust.manage'] as const;
export type AllowedCommand = (typeof ALLOWED_COMMANDS)[number];

export const MAX_QUESTION_CHARS = 20_000;
export const MAX_TITLE_CHARS = 200;
export const MAX_SEARCH_CHARS = 500;
export const MAX_COPY_CHARS = 1_000_000;
/** No conversation has more turns than this; a turn index at or past it is refused outright. */
export const MAX_TURNS = 10_000;
/** More answers to one question than Retry would make by hand. */
export const MAX_SIBLINGS = 1_000;

export interface ConversationSummary {
  id: string;
  title: string;
  updated: string;
  turnCount: number;
  filedPage?: string;
  /** Running token totals over the conversation's turns. */
  inputTokens?: number;
  outputTokens?: number;
  tags?: string[];
  /** Set on a fork: the conversation it came from, and how many of its turns the fork started with. */
  parentConversationId?: string;
  forkedAtTurn?: number;
}

/** One tool call of an answer: what the model looked up, and (collapsed) what it read. */
export interface StepView {
  tool: string;
  label: string;
  ok: boolean;
  summary: string;
  output: string;
}

export interface PageRef {
  slug: string;
  title: string;
  stale: boolean;
}

export interface TurnView {
  index: number;
  question: string;
  answer: string;
  pages: PageRef[];
  model: string;
  offline: boolean;
  created: string;
  selection?: { path: string; startLine: number; endLine: number };
  steps?: StepView[];
  /** Set when Retry answered the question again: which answer this is (0-based), of how many. */
  sibling?: number;
  siblingCount?: number;
  /** Code citations the model never read and that do not resolve. */
  unverified?: string[];
  droppedPriorTurns?: number;
  /** The prompt carried a summary of this many earlier turns instead of the turns themselves. */
  summarisedPriorTurns?: number;
  /** Earlier turns that did not fit the prompt and could not be summarised, and why. */
  unsummarisedPriorTurns?: { count: number; reason: 'offline' | 'failed' };
  /** No page cleared the confidence floor, and no tool found anything. */
  noMatch?: boolean;
  /** Input tokens of the answer's largest request: how full the model's context was. */
  promptTokens?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** The answering model's window, for the near-the-limit warning. */
  contextWindow?: number;
  /** The model cannot call tools: it answered in one shot. */
  oneShot?: boolean;
  /** Models of the fallback chain that failed before this one answered. */
  attempts?: FailedModel[];
}

/** A code selection attached to the next question; the host keeps the text, the webview its id. */
export interface SelectionChip {
  id: string;
  path: string;
  startLine: number;
  endLine: number;
  language: string;
  preview: string;
  truncated: boolean;
  pages: PageRef[];
}

export interface SearchHitView {
  conversationId: string;
  conversationTitle: string;
  turnIndex: number;
  snippet: string;
  /** Set when the conversation matched by its tags rather than by a turn. */
  tags?: string[];
}

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'runCommand'; command: AllowedCommand }
  | { type: 'ask'; requestId: string; conversationId?: string; question: string; selectionId?: string }
  | { type: 'stop'; requestId: string }
  /** Answer the conversation's last question again; both answers are kept and the new one shown. */
  | { type: 'retry'; requestId: string; conversationId: string }
  /** Show answer `sibling` of question `turnIndex` (0-based); the conversation goes on from it. */
  | { type: 'showSibling'; conversationId: string; turnIndex: number; sibling: number }
  /** Ask question `turnIndex` (0-based) again, edited: the host forks before it; the original stays. */
  | { type: 'editQuestion'; requestId: string; conversationId: string; turnIndex: number; question: string }
  | { type: 'newConversation' }
  /** The history is shown: list the conversations again (the terminal or another window may have added some). */
  | { type: 'listConversations' }
  | { type: 'openConversation'; conversationId: string }
  | { type: 'search'; query: string }
  | { type: 'rename'; conversationId: string; title: string }
  | { type: 'addTag'; conversationId: string; tag: string }
  | { type: 'removeTag'; conversationId: string; tag: string }
  | { type: 'delete'; conversationId: string }
  | { type: 'undoDelete'; conversationId: string }
  | { type: 'export'; conversationId: string; format: 'markdown' | 'json' }
  | { type: 'saveToWiki'; conversationId: string }
  /** Save only these turns (0-based, ascending, consecutive) as a page of their own. */
  | { type: 'saveTurns'; conversationId: string; turnIndexes: number[] }
  | { type: 'openPage'; slug: string }
  | { type: 'openCitation'; citation: string }
  | { type: 'copy'; text: string }
  | { type: 'removeSelection'; selectionId: string };

export type HostToWebview =
  | { type: 'state'; hasWiki: boolean; trusted: boolean; offline: boolean; model: string; contextWindow: number }
  | { type: 'conversations'; items: ConversationSummary[] }
  | { type: 'conversation'; conversation: ConversationSummary | null; turns: TurnView[] }
  | { type: 'turnStarted'; requestId: string; conversationId: string }
  | { type: 'context'; requestId: string; pages: PageRef[]; offline: boolean }
  | { type: 'delta'; requestId: string; text: string }
  /** A tool call started (no `step`) or finished (with it). */
  | { type: 'toolStep'; requestId: string; id: string; label: string; step?: StepView }
  | { type: 'retrying'; requestId: string; attempt: number; delayMs: number; status: number }
  | { type: 'turnDone'; requestId: string; conversation: ConversationSummary; turn: TurnView; stopped: boolean }
  | { type: 'turnFailed'; requestId: string; message: string; action?: 'setUpModel' | 'retry' }
  | { type: 'searchResults'; query: string; hits: SearchHitView[] }
  | { type: 'selection'; chip: SelectionChip; question: string }
  | { type: 'deleted'; conversationId: string; title: string }
  | { type: 'filed'; conversationId: string; slug: string }
  | { type: 'notice'; message: string };

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(value);
const isText = (max: number) => (value: unknown): value is string => typeof value === 'string' && value.length <= max;
const isTurnIndex = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0 && (value as number) < MAX_TURNS;
/** Turn indexes in ascending order, no gaps: one run of turns, as a page holds it. */
const isTurnRun = (value: unknown): value is number[] =>
  Array.isArray(value) && value.length > 0 && value.length <= MAX_TURNS && value.every((index, i) => isTurnIndex(index) && (i === 0 || index === value[i - 1] + 1));
const isSlug = (value: unknown): value is string => typeof value === 'string' && /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(value) && value.length <= 80;

/** Checks that `message` has exactly these keys (optional ones may be absent) and each passes its check. */
function shape(message: Fields, required: Record<string, (v: unknown) => boolean>, optional: Record<string, (v: unknown) => boolean> = {}): boolean {
  for (const key of Object.keys(message)) {
    if (key === 'type') continue;
    const check = required[key] ?? optional[key];
    if (!check || !check(message[key])) return false;
  }
  return Object.keys(required).every((key) => key in message);
}

const WEBVIEW_MESSAGES: Record<WebviewToHost['type'], [Record<string, (v: unknown) => boolean>, Record<string, (v: unknown) => boolean>?]> = {
  ready: [{}],
  runCommand: [{ command: (v) => ALLOWED_COMMANDS.includes(v as AllowedCommand) }],
  ask: [{ requestId: isId, question: (v) => isText(MAX_QUESTION_CHARS)(v) && v.trim().length > 0 }, { conversationId: isId, selectionId: isId }],
  stop: [{ requestId: isId }],
  retry: [{ requestId: isId, conversationId: isId }],
  // The host also checks both against the conversation's answers.
  showSibling: [{ conversationId: isId, turnIndex: isTurnIndex, sibling: (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) < MAX_SIBLINGS }],
  // The host also checks the index against the conversation's turns.
  editQuestion: [{ requestId: isId, conversationId: isId, turnIndex: isTurnIndex, question: (v) => isText(MAX_QUESTION_CHARS)(v) && v.trim().length > 0 }],
  newConversation: [{}],
  listConversations: [{}],
  openConversation: [{ conversationId: isId }],
  search: [{ query: isText(MAX_SEARCH_CHARS) }],
  rename: [{ conversationId: isId, title: (v) => isText(MAX_TITLE_CHARS)(v) && v.trim().length > 0 }],
  // The webview normalises a typed tag before sending it; the host accepts only normalised ones.
  addTag: [{ conversationId: isId, tag: isTag }],
  removeTag: [{ conversationId: isId, tag: isTag }],
  delete: [{ conversationId: isId }],
  undoDelete: [{ conversationId: isId }],
  export: [{ conversationId: isId, format: (v) => v === 'markdown' || v === 'json' }],
  saveToWiki: [{ conversationId: isId }],
  saveTurns: [{ conversationId: isId, turnIndexes: isTurnRun }],
  openPage: [{ slug: isSlug }],
  // The host resolves the citation and refuses anything outside the workspace.
  openCitation: [{ citation: isText(500) }],
  copy: [{ text: isText(MAX_COPY_CHARS) }],
  removeSelection: [{ selectionId: isId }],
};

/** The message if it is one the host accepts, else undefined (the caller drops and logs it). */
export function parseWebviewMessage(value: unknown): WebviewToHost | undefined {
  if (!isObject(value) || typeof value.type !== 'string' || !Object.hasOwn(WEBVIEW_MESSAGES, value.type)) return undefined;
  const [required, optional] = WEBVIEW_MESSAGES[value.type as WebviewToHost['type']];
  return shape(value, required, optional) ? (value as WebviewToHost) : undefined;
}

const HOST_TYPES = new Set<HostToWebview['type']>([
  'state', 'conversations', 'conversation', 'turnStarted', 'context', 'delta', 'toolStep', 'retrying', 'turnDone', 'turnFailed', 'searchResults', 'selection', 'deleted', 'filed', 'notice',
]);

/** The webview trusts only the host, but still drops anything that is not a known message. */
export function parseHostMessage(value: unknown): HostToWebview | undefined {
  return isObject(value) && HOST_TYPES.has(value.type as HostToWebview['type']) ? (value as HostToWebview) : undefined;
}
