import * as z from 'zod/mini';
import { isFileAccessError, type FileAccessError } from '../errors';
import type { ToolInputSchema, ToolName, ToolResult, WikiTool } from './tool';

/** Every result's text is cut here: a model's context is not the place for a whole file or repository. */
export const MAX_RESULT_CHARS = 32 * 1024;

/**
 * How long one tool call may run before it answers that it timed out. Longer than ripgrep's own
 * limit (10 s, after which grep_code returns the lines found so far), short of an MCP client's
 * usual request timeout (60 s).
 */
export const TOOL_DEADLINE_MS = 20_000;

/** A tool as each module declares it: its input as a strict zod/mini object, its handler over valid input. */
export interface ToolSpec<Shape extends z.core.$ZodLooseShape> {
  name: ToolName;
  description: string;
  input: z.ZodMiniObject<Shape, z.core.$strict>;
  /** From the raw input (which may be invalid): what the step is called in the chat. */
  label(input: Readonly<Record<string, unknown>>): string;
  /** Gets a signal that aborts when the caller cancels or the deadline passes; work should stop then. */
  run(input: z.output<z.ZodMiniObject<Shape, z.core.$strict>>, signal: AbortSignal): Promise<ToolResult>;
  /** What to narrow when a call runs out of time, e.g. `Search for a more specific pattern.` */
  narrow: string;
  /** The call's time limit; TOOL_DEADLINE_MS unless given. */
  deadlineMs?: number;
}

/** Why a tool's work was aborted at its deadline (the abort reason its signal carries). */
export class ToolTimeoutError extends Error {
  constructor(tool: ToolName, ms: number) {
    super(`${tool} ran out of time after ${formatSeconds(ms)}`);
    this.name = 'TimeoutError';
  }
}

/**
 * The WikiTool of a spec: JSON schema from zod, validation with readable messages, every failure
 * as a result, and every call bounded in time: at the deadline the call answers with a timed-out
 * failure saying what to narrow, and the handler's signal aborts, which stops its work (ripgrep
 * is killed, a drift check stops before its next page). Cancelling the caller's signal rejects at once.
 */
export function defineTool<Shape extends z.core.$ZodLooseShape>(spec: ToolSpec<Shape>): WikiTool {
  const inputSchema = toInputSchema(spec.input);
  const deadlineMs = spec.deadlineMs ?? TOOL_DEADLINE_MS;
  const timedOut = () => failure(`${spec.name} timed out after ${formatSeconds(deadlineMs)} and was stopped. ${spec.narrow}`, 'timed out');
  return {
    name: spec.name,
    description: spec.description,
    inputSchema,
    label: (input) => spec.label(isRecord(input) ? input : {}),
    async run(input, signal) {
      signal?.throwIfAborted();
      const parsed = spec.input.safeParse(input);
      if (!parsed.success) return invalidInput(spec.name, parsed.error.issues, inputSchema, input);
      const work = new AbortController();
      const bounded = deadline(work, deadlineMs, signal, () => new ToolTimeoutError(spec.name, deadlineMs));
      try {
        const running = spec.run(parsed.data, work.signal);
        const outcome = await Promise.race([running, bounded.reached]);
        if (outcome !== TIMED_OUT) return outcome;
        running.catch(() => undefined); // its work was aborted; its rejection now is expected
        return timedOut();
      } catch (error) {
        // Only cancellation rejects; anything else is reported to the model, and its loop goes on.
        if (signal?.aborted) throw error;
        // Work that stopped at the deadline's abort before the deadline's own answer.
        if (work.signal.reason instanceof ToolTimeoutError) return timedOut();
        if (isFileAccessError(error)) return refused(error);
        return failure(`${spec.name} failed: ${error instanceof Error ? error.message : String(error)}`, 'failed');
      } finally {
        bounded.dispose();
      }
    },
  };
}

const TIMED_OUT = Symbol('timed out');

/**
 * `reached` resolves with TIMED_OUT after `ms`, aborting `work` with `reason()`; it rejects with
 * the caller's reason as soon as `caller` aborts, aborting `work` too. It never settles after `dispose`.
 */
function deadline(work: AbortController, ms: number, caller: AbortSignal | undefined, reason: () => Error): { reached: Promise<typeof TIMED_OUT>; dispose(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const reached = new Promise<typeof TIMED_OUT>((resolve, reject) => {
    timer = setTimeout(() => {
      work.abort(reason());
      resolve(TIMED_OUT);
    }, ms);
    onAbort = () => {
      work.abort(caller!.reason);
      reject(caller!.reason);
    };
    caller?.addEventListener('abort', onAbort, { once: true });
  });
  reached.catch(() => undefined); // a cancellation after the work settled is nobody's error
  return {
    reached,
    dispose() {
      clearTimeout(timer);
      if (onAbort) caller?.removeEventListener('abort', onAbort);
    },
  };
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function toInputSchema(input: z.ZodMiniObject): ToolInputSchema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(input) as ToolInputSchema;
  return schema;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function success(text: string, summary: string, read?: string[]): ToolResult {
  return { ok: true, text: capText(text), summary, ...(read?.length ? { read } : {}) };
}

export function failure(text: string, summary: string): ToolResult {
  return { ok: false, text: capText(text), summary };
}

const REFUSAL_SUMMARY: Record<FileAccessError['reason'], string> = {
  'link-outside': 'outside the workspace',
  outside: 'outside the workspace',
  'not-regular': 'not a regular file',
  'too-large': 'too large',
  secret: 'a secret or git file',
  symlink: 'a symbolic link',
  'too-deep': 'nested too deeply to parse',
};

/** A read the file-access module refused: its message names the file and why, never the content. */
export function refused(error: FileAccessError): ToolResult {
  return failure(error.userMessage, `refused: ${REFUSAL_SUMMARY[error.reason]}`);
}

/** `text` cut at a line end before MAX_RESULT_CHARS, with a note saying so. */
export function capText(text: string, max = MAX_RESULT_CHARS): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max);
  const kept = text.slice(0, cut > max / 2 ? cut : max);
  return `${kept}\n[cut: the result was ${Math.round(text.length / 1024)} KB; only its first ${Math.round(kept.length / 1024)} KB are shown]`;
}

/** A string field of a raw input for labels, shortened; '' when absent or not a string. */
export function field(input: Readonly<Record<string, unknown>>, key: string, max = 60): string {
  const value = input[key];
  if (typeof value !== 'string') return '';
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

/** "1 page", "3 pages". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

// zod/mini carries no locale: its issues say "Invalid input" unless a schema gave its own message,
// so a field's expectation is told from the JSON schema the model was given.
function invalidInput(tool: ToolName, issues: readonly z.core.$ZodIssue[], schema: ToolInputSchema, input: unknown): ToolResult {
  const lines = issues.map((issue) => describeIssue(issue, schema, input));
  return failure(`Invalid input for ${tool}: ${lines.join('; ')}.`, 'invalid input');
}

function describeIssue(issue: z.core.$ZodIssue, schema: ToolInputSchema, input: unknown): string {
  const key = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => `"${k}"`).join(', ')} (the fields are ${Object.keys(schema.properties).join(', ')})`;
  }
  if (!key) return `expected an object with the fields ${Object.keys(schema.properties).join(', ')}`;
  // Our schemas' own messages all say "expected …"; anything else is zod's wording (its locale may
  // be loaded by another module, e.g. the MCP SDK's zod), which the JSON schema says better.
  const custom = issue.message?.startsWith('expected ') ? issue.message : undefined;
  const missing = isRecord(input) && input[key] === undefined;
  const expected = custom ?? expectation(schema.properties[key] as PropertySchema | undefined);
  return missing ? `${key}: required, ${expected}` : `${key}: ${expected}`;
}

interface PropertySchema {
  type?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

function expectation(property: PropertySchema | undefined): string {
  if (property?.type === 'integer' || property?.type === 'number') {
    const noun = property.type === 'integer' ? 'an integer' : 'a number';
    if (property.minimum !== undefined && property.maximum !== undefined) return `expected ${noun} from ${property.minimum} to ${property.maximum}`;
    return `expected ${noun}`;
  }
  if (property?.type === 'string') {
    const min = property.minLength ?? 0;
    const size = property.maxLength !== undefined ? ` of at most ${property.maxLength} characters` : '';
    return `expected a${min > 0 ? ' non-empty' : ''} string${size}`;
  }
  return 'expected a valid value';
}
