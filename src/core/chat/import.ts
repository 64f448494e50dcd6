import { isValidSlug } from '../pages/slug';
import { isTag } from '../../shared/tags';
import { isTitleSource, tagSet, type ConversationRecord, type PriorTurnsSummary, type SelectionContext, type ToolStep, type Turn, type TurnContext } from './conversation';
import { EXPORT_FORMAT, EXPORT_VERSION, MARKDOWN_RECORD_MARKER } from './export';
import { isConversationId } from './lineage';

/** An export that cannot be imported; the message says what is wrong (the caller names the file). */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}


/**
 * The conversation in a Markdown or JSON export (any version so far). Markdown exports from version 2
 * on carry the whole record in a hidden comment; older ones are read back from their text, which
 * keeps the questions, answers, pages used, model and selections, but not token counts or tool steps.
 * Throws ImportError for anything malformed: nothing is half read.
 */
export function parseConversationExport(text: string): ConversationRecord {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trimStart().startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (error) {
      throw new ImportError(`not valid JSON (${(error as Error).message})`);
    }
    return recordFromExport(value);
  }
  const marker = body.lastIndexOf(MARKDOWN_RECORD_MARKER);
  if (marker >= 0) {
    const start = body.indexOf('\n', marker);
    const end = body.indexOf('-->', marker);
    if (start < 0 || end < 0 || end < start) throw new ImportError('the conversation record at the end of the Markdown is cut off');
    let value: unknown;
    try {
      value = JSON.parse(body.slice(start, end));
    } catch (error) {
      throw new ImportError(`the conversation record at the end of the Markdown is not valid JSON (${(error as Error).message})`);
    }
    return recordFromExport(value);
  }
  return recordFromMarkdownText(body);
}

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const isDate = (value: unknown): value is string => typeof value === 'string' && !Number.isNaN(Date.parse(value));
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

function fail(where: string, what: string): never {
  throw new ImportError(`${where} ${what}`);
}

function field<T>(object: Fields, key: string, where: string, check: (value: unknown) => value is T, what: string): T {
  const value = object[key];
  if (!check(value)) fail(`${where}${key}`, value === undefined ? 'is missing' : `is not ${what}`);
  return value;
}

function optional<T>(object: Fields, key: string, where: string, check: (value: unknown) => value is T, what: string): T | undefined {
  return object[key] === undefined ? undefined : field(object, key, where, check, what);
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isId = (value: unknown): value is string => isString(value) && isConversationId(value);
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isArray = (value: unknown): value is unknown[] => Array.isArray(value);

function recordFromExport(value: unknown): ConversationRecord {
  if (!isObject(value)) fail('the file', 'is not a conversation export (expected a JSON object)');
  if (value.format !== EXPORT_FORMAT) fail('the file', `is not a Repo Wiki conversation export ("format" is not "${EXPORT_FORMAT}")`);
  const version = value.version;
  if (!Number.isInteger(version) || (version as number) < 1) fail('"version"', 'is not a format version');
  if ((version as number) > EXPORT_VERSION) fail('the file', `was exported by a newer version of Repo Wiki (format version ${String(version)}; this one reads up to ${EXPORT_VERSION}): update the extension`);
  const c = field(value, 'conversation', '', isObject, 'an object');
  const turnsValue = field(value, 'turns', '', isArray, 'a list');
  const id = field(c, 'id', 'conversation.', isId, 'a conversation id (letters, digits, "-", "_")');
  const turns = turnsValue.map((turn, index) => turnFrom(turn, index, id));
  const siblings = siblingsFrom(optional(value, 'siblings', '', isArray, 'a list') ?? [], turns, id);
  const tags = optional(c, 'tags', 'conversation.', (v): v is string[] => isArray(v) && v.every(isTag), 'a list of tags') ?? [];
  const filedPage = optional(c, 'filedPage', 'conversation.', (v): v is string => isString(v) && isValidSlug(v), 'a page slug');
  const priorSummary = optional(c, 'priorSummary', 'conversation.', isObject, 'an object');
  // Format 3: a fork names its parent and the turn it was forked at; both or neither.
  const parentConversationId = optional(c, 'parentConversationId', 'conversation.', isId, 'a conversation id (letters, digits, "-", "_")');
  const forkedAtTurn = optional(c, 'forkedAtTurn', 'conversation.', isCount, 'a number of turns');
  if ((parentConversationId === undefined) !== (forkedAtTurn === undefined)) fail('conversation', 'has only one of parentConversationId and forkedAtTurn (a fork has both)');
  // Absent in exports from before it was kept: such a title is never replaced, as in the store.
  const titleSource = optional(c, 'titleSource', 'conversation.', isTitleSource, 'question, fork, model or user');
  return {
    conversation: {
      id,
      title: field(c, 'title', 'conversation.', (v): v is string => isString(v) && v.trim().length > 0, 'a title'),
      created: field(c, 'created', 'conversation.', isDate, 'a date'),
      updated: field(c, 'updated', 'conversation.', isDate, 'a date'),
      ...(filedPage ? { filedPage } : {}),
      turnCount: turns.length,
      inputTokens: [...turns, ...siblings].reduce((sum, turn) => sum + turn.inputTokens, 0),
      outputTokens: [...turns, ...siblings].reduce((sum, turn) => sum + turn.outputTokens, 0),
      tags: tagSet(tags),
      ...(priorSummary ? { priorSummary: summaryFrom(priorSummary, turns.length) } : {}),
      ...(parentConversationId ? { parentConversationId, forkedAtTurn } : {}),
      ...(titleSource ? { titleSource } : {}),
    },
    turns,
    ...(siblings.length ? { siblings } : {}),
  };
}

/**
 * Format 3: the other answers Retry made. Each names its question (`index`) and its answer number
 * (`sibling`, absent for 0); with the answer each turn shows (its own `sibling`), every question's
 * answers are 0..n-1.
 */
function siblingsFrom(values: unknown[], turns: Turn[], conversationId: string): Turn[] {
  const siblings = values.map((value, i) => {
    const where = `siblings[${i}].`;
    if (!isObject(value)) fail(`siblings[${i}]`, 'is not an object');
    const index = field(value, 'index', where, (v): v is number => isCount(v) && v < turns.length, `a question index (below ${turns.length})`);
    return { ...turnFrom(value, index, conversationId), index };
  });
  turns.forEach((turn, index) => {
    const shown = turn.sibling ?? 0;
    const numbers = [shown, ...siblings.filter((sibling) => sibling.index === index).map((sibling) => sibling.sibling ?? 0)].sort((a, b) => a - b);
    if (numbers.some((number, i) => number !== i)) fail(`the answers to turns[${index}]`, `are numbered ${numbers.join(', ')} (expected 0 to ${numbers.length - 1}, each once)`);
    if (numbers.length > 1) Object.assign(turn, { sibling: shown, siblingCount: numbers.length });
    else delete turn.sibling;
  });
  return siblings;
}

function summaryFrom(s: Fields, turnCount: number): PriorTurnsSummary {
  const where = 'conversation.priorSummary.';
  return {
    text: field(s, 'text', where, isString, 'text'),
    turns: field(s, 'turns', where, (v): v is number => isCount(v) && v <= turnCount, `a number of turns (at most ${turnCount})`),
    model: field(s, 'model', where, isString, 'a model name'),
    created: field(s, 'created', where, isDate, 'a date'),
  };
}

function turnFrom(value: unknown, index: number, conversationId: string): Turn {
  const where = `turns[${index}].`;
  if (!isObject(value)) fail(`turns[${index}]`, 'is not an object');
  const steps = optional(value, 'steps', where, isArray, 'a list');
  return {
    conversationId,
    index,
    question: field(value, 'question', where, isString, 'text'),
    answer: field(value, 'answer', where, isString, 'text'),
    context: contextFrom(field(value, 'context', where, isObject, 'an object'), `${where}context.`),
    model: field(value, 'model', where, isString, 'a model name'),
    inputTokens: field(value, 'inputTokens', where, isCount, 'a token count'),
    outputTokens: field(value, 'outputTokens', where, isCount, 'a token count'),
    created: field(value, 'created', where, isDate, 'a date'),
    ...(steps?.length ? { steps: steps.map((step, i) => stepFrom(step, `${where}steps[${i}]`)) } : {}),
    ...optionalCount(value, 'sibling', where),
  };
}

function optionalCount(value: Fields, key: 'sibling', where: string): { sibling?: number } {
  const count = optional(value, key, where, isCount, 'an answer number');
  return count ? { [key]: count } : {};
}

function contextFrom(c: Fields, where: string): TurnContext {
  const pages = field(c, 'pages', where, isArray, 'a list').map((page, i) => {
    const at = `${where}pages[${i}].`;
    if (!isObject(page)) fail(`${where}pages[${i}]`, 'is not an object');
    return { slug: field(page, 'slug', at, isString, 'a page slug'), title: field(page, 'title', at, isString, 'text'), score: field(page, 'score', at, isNumber, 'a number'), stale: field(page, 'stale', at, isBoolean, 'true or false') };
  });
  const selection = optional(c, 'selection', where, isObject, 'an object');
  const unverified = optional(c, 'unverified', where, (v): v is string[] => isArray(v) && v.every(isString), 'a list of citations');
  const counts = ['promptTokens', 'droppedPriorTurns', 'summarisedPriorTurns'] as const;
  const unsummarised = optional(c, 'unsummarisedPriorTurns', where, isObject, 'an object');
  const context: TurnContext = { pages, offline: field(c, 'offline', where, isBoolean, 'true or false') };
  if (selection) context.selection = selectionFrom(selection, `${where}selection.`);
  if (unverified) context.unverified = unverified;
  for (const key of counts) {
    const count = optional(c, key, where, isCount, 'a count');
    if (count !== undefined) context[key] = count;
  }
  if (optional(c, 'noMatch', where, isBoolean, 'true or false')) context.noMatch = true;
  if (unsummarised) {
    context.unsummarisedPriorTurns = {
      count: field(unsummarised, 'count', `${where}unsummarisedPriorTurns.`, isCount, 'a count'),
      reason: field(unsummarised, 'reason', `${where}unsummarisedPriorTurns.`, (v): v is 'offline' | 'failed' => v === 'offline' || v === 'failed', '"offline" or "failed"'),
    };
  }
  return context;
}

function selectionFrom(s: Fields, where: string): SelectionContext {
  return {
    path: field(s, 'path', where, isString, 'a path'),
    startLine: field(s, 'startLine', where, isCount, 'a line number'),
    endLine: field(s, 'endLine', where, isCount, 'a line number'),
    language: field(s, 'language', where, isString, 'a language id'),
    text: field(s, 'text', where, isString, 'text'),
    truncated: field(s, 'truncated', where, isBoolean, 'true or false'),
  };
}

function stepFrom(value: unknown, where: string): ToolStep {
  if (!isObject(value)) fail(where, 'is not an object');
  const at = `${where}.`;
  return {
    tool: field(value, 'tool', at, isString, 'a tool name'),
    input: value.input,
    label: field(value, 'label', at, isString, 'text'),
    ok: field(value, 'ok', at, isBoolean, 'true or false'),
    summary: field(value, 'summary', at, isString, 'text'),
    output: field(value, 'output', at, isString, 'text'),
  };
}

const FOOTER_START = '_Pages used: ';
const FOOTER_SEPARATOR = ' · ';
/** What `.` in a regular expression does not match: a footer line holds none of them. */
const LINE_TERMINATOR = /[\r\u2028\u2029]/;
const SELECTION = /^About `([^`]+)` lines (\d+)–(\d+):$/;
/** A `[[slug]]` of the footer; a slug holds no bracket and is at most 80 characters, so each scan for `]]` is short. */
const FOOTER_PAGE = /\[\[([^[\]\n]{1,200})\]\]( \(stale\))?/g;

/**
 * The pages and model of a `_Pages used: … · model_` line, or undefined when the line is not one.
 * What /^_Pages used: (.*) · (.+)_$/ matched, without its backtracking: that regular expression
 * takes time quadratic in the line's length on a long line with many " · " and no closing "_".
 */
function footerOf(line: string): { pages: string; model: string } | undefined {
  if (!line.startsWith(FOOTER_START) || !line.endsWith('_') || line.length < FOOTER_START.length + FOOTER_SEPARATOR.length + 2) return undefined;
  const inner = line.slice(FOOTER_START.length, -1);
  // The last separator with at least one character after it, as the greedy (.*) found.
  const at = inner.lastIndexOf(FOOTER_SEPARATOR, inner.length - FOOTER_SEPARATOR.length - 1);
  if (at < 0 || LINE_TERMINATOR.test(line)) return undefined;
  return { pages: inner.slice(0, at), model: inner.slice(at + FOOTER_SEPARATOR.length) };
}

/** The citations of an `_Unverified citations (…): a, b_` line: what /: (.*)_$/ matched, without backtracking. */
function unverifiedOf(line: string): string[] | undefined {
  const at = line.indexOf(': ');
  if (at < 0 || !line.endsWith('_') || at + 2 > line.length - 1 || LINE_TERMINATOR.test(line)) return undefined;
  return line.slice(at + 2, -1).split(', ');
}

/**
 * A version-1 Markdown export, read back from its text: `# title`, a date line, then per turn a
 * `## question` heading, an optional selection and "Looked up:" list, the answer, and the
 * `_Pages used: … · model_` line that ends the turn.
 */
function recordFromMarkdownText(text: string): ConversationRecord {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let at = 0;
  const skipBlank = () => { while (at < lines.length && !lines[at].trim()) at++; };
  skipBlank();
  const title = /^# (.+)$/.exec(lines[at] ?? '')?.[1]?.trim();
  if (!title) fail('the Markdown', 'does not start with a "# title" line: it is not a conversation export');
  at++;
  skipBlank();
  const date = /^_(\d{4}-\d{2}-\d{2}) · \d+ questions?/.exec(lines[at] ?? '')?.[1];
  if (!date || !isDate(date)) fail(`line ${at + 1}`, 'should be the export\'s "_date · N questions_" line');
  const created = new Date(`${date}T00:00:00.000Z`).toISOString();
  at++;
  const turns: Turn[] = [];
  // Version 1 Markdown has no id: an empty one, which the store replaces with a new one.
  const id = '';
  for (;;) {
    skipBlank();
    if (at >= lines.length) break;
    const question = /^## (.+)$/.exec(lines[at])?.[1];
    if (question === undefined) fail(`line ${at + 1}`, 'should start a question ("## …")');
    const headingLine = at + 1;
    at++;
    // One pass over the file: each turn's search for its footer starts where the turn does.
    let end = at;
    let footer: ReturnType<typeof footerOf>;
    while (end < lines.length && !(footer = footerOf(lines[end]))) end++;
    if (!footer) fail(`line ${headingLine}`, 'starts a question whose "_Pages used: …_" line is missing');
    let body = lines.slice(at, end);
    const { pages: pagesText, model } = footer;
    at = end + 1;
    let selection: SelectionContext | undefined;
    const firstLine = body.findIndex((line) => line.trim());
    const about = SELECTION.exec(body[firstLine] ?? '');
    if (about) {
      const open = body.findIndex((line, i) => i > firstLine && line.startsWith('````'));
      const close = body.findIndex((line, i) => i > open && line === '````');
      if (open < 0 || close < 0) fail(`line ${headingLine}`, 'has a selection whose code block is not closed');
      selection = { path: about[1], startLine: Number(about[2]), endLine: Number(about[3]), language: body[open].slice(4), text: body.slice(open + 1, close).join('\n'), truncated: false };
      body = body.slice(close + 1);
    }
    const lookedUp = body.findIndex((line) => line.trim());
    if (body[lookedUp] === 'Looked up:') {
      let next = lookedUp + 1;
      while (next < body.length && (!body[next].trim() || body[next].startsWith('- '))) next++;
      body = body.slice(next);
    }
    let unverifiedAt = body.length - 1;
    while (unverifiedAt >= 0 && !body[unverifiedAt].startsWith('_Unverified citations')) unverifiedAt--;
    const unverified = unverifiedAt >= 0 ? unverifiedOf(body[unverifiedAt]) : undefined;
    if (unverifiedAt >= 0) body = body.slice(0, unverifiedAt);
    const offline = model === 'offline answer';
    const pages = Array.from(pagesText.matchAll(FOOTER_PAGE), (m) => ({ slug: m[1], title: m[1], score: 0, stale: !!m[2] }));
    turns.push({
      conversationId: id, index: turns.length, question, answer: body.join('\n').trim(),
      context: { pages, offline, ...(selection ? { selection } : {}), ...(unverified?.length ? { unverified } : {}) },
      model: offline ? 'offline' : model, inputTokens: 0, outputTokens: 0, created,
    });
  }
  return { conversation: { id, title, created, updated: created, turnCount: turns.length, inputTokens: 0, outputTokens: 0, tags: [] }, turns };
}
