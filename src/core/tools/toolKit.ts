import * as z from 'zod/mini';
import { isFileAccessError, type FileAccessError } from '../errors';
import type { ToolInputSchema, ToolName, ToolResult, WikiTool } from './tool';

/** Every result's text is cut here: a model's context is not the place for a whole file or repository. */
export const MAX_RESULT_CHARS = 32 * 1024;

/** A tool as each module declares it: its input as a strict zod/mini object, its handler over valid input. */
export interface ToolSpec<Shape extends z.core.$ZodLooseShape> {
  name: ToolName;
  description: string;
  input: z.ZodMiniObject<Shape, z.core.$strict>;
  /** From the raw input (which may be invalid): what the step is called in the chat. */
  label(input: Readonly<Record<string, unknown>>): string;
  run(input: z.output<z.ZodMiniObject<Shape, z.core.$strict>>, signal?: AbortSignal): Promise<ToolResult>;
}

/** The WikiTool of a spec: JSON schema from zod, validation with readable messages, and every failure as a result. */
export function defineTool<Shape extends z.core.$ZodLooseShape>(spec: ToolSpec<Shape>): WikiTool {
  const inputSchema = toInputSchema(spec.input);
  return {
    name: spec.name,
    description: spec.description,
    inputSchema,
    label: (input) => spec.label(isRecord(input) ? input : {}),
    async run(input, signal) {
      signal?.throwIfAborted();
      const parsed = spec.input.safeParse(input);
      if (!parsed.success) return invalidInput(spec.name, parsed.error.issues, inputSchema, input);
      try {
        return await spec.run(parsed.data, signal);
      } catch (error) {
        // Only cancellation rejects; anything else is reported to the model, and its loop goes on.
        if (signal?.aborted) throw error;
        if (isFileAccessError(error)) return refused(error);
        return failure(`${spec.name} failed: ${error instanceof Error ? error.message : String(error)}`, 'failed');
      }
    },
  };
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
