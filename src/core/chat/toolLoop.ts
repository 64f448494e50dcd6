import { LlmError, type ChatMessage, type ContentBlock, type LanguageModel, type ModelAttempt, type StreamCallbacks, type SystemBlock, type ToolCall, type ToolSpec } from '../llm/languageModel';
import type { ToolResult, WikiTool } from '../tools/tool';
import type { ToolStep } from './conversation';
import { addAttempts } from '../llm/fallbackChain';
import { neutralise } from './prompt';
import { requestTokens } from './promptBudget';

export interface ToolLoopSettings {
  model: string;
  maxTokens: number;
  /** Rounds in which the model may call tools; the round after the last must answer. */
  maxToolRounds: number;
  /** Input tokens over all rounds after which the model must answer. */
  toolTokenBudget: number;
  /** The most input tokens one request may hold (the model's window less the answer); tool results are cut to fit it. */
  inputLimit?: number;
  /** Counts tokens as the model does, for `inputLimit`. */
  countTokens?(text: string): number;
}

export interface ToolStepEvent {
  id: string;
  label: string;
  /** Absent while the tool runs. */
  step?: ToolStep;
}

export interface ToolLoopEvents extends StreamCallbacks {
  /** A tool call starts (no `step`) and ends (with it). */
  onToolStep?(event: ToolStepEvent): void;
}

export interface ToolLoopRequest {
  system: SystemBlock[];
  messages: ChatMessage[];
  tools: readonly WikiTool[];
  settings: ToolLoopSettings;
  /** Filled as tools finish, so a stopped turn keeps the steps it took. */
  steps: ToolStep[];
}

export interface ToolLoopResult {
  text: string;
  model: string;
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  rounds: number;
  /** Input tokens of the last round, the largest prompt of the loop. */
  lastInputTokens: number;
  /** Citations whose current code a tool showed the model. */
  read: Set<string>;
  /** Models of a fallback chain that failed before one answered, over all rounds. */
  attempts: ModelAttempt[];
}

/** Stored with the turn; the model saw all of it, people see the summary and can expand this. */
const STEP_OUTPUT_MAX_CHARS = 4000;
const LAST_ROUND_NOTE = 'You have used your tool calls for this question. Answer now from what you have read; say what you could not check.';

/**
 * The model answers, calling read-only tools for up to `maxToolRounds` rounds: each round's tool
 * results go back fenced as data, and the growing prefix is marked for the prompt cache.
 */
export async function runToolLoop(model: LanguageModel, request: ToolLoopRequest, events: ToolLoopEvents, signal?: AbortSignal): Promise<ToolLoopResult> {
  const { settings, tools } = request;
  const specs: ToolSpec[] = tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
  const byName = new Map(tools.map((tool) => [tool.name as string, tool]));
  const messages = [...request.messages];
  const result: ToolLoopResult = { text: '', model: settings.model, inputTokens: 0, cacheReadTokens: 0, outputTokens: 0, rounds: 0, lastInputTokens: 0, read: new Set(), attempts: [] };
  const callbacks: StreamCallbacks = {
    onText: (delta) => {
      result.text += delta;
      events.onText(delta);
    },
    onRetry: events.onRetry,
  };
  const room = inputRoom(settings, request.system, specs);
  for (;;) {
    const left = room(messages);
    // A small window: the model answers once what it has read leaves no room for more.
    const mustAnswer = result.rounds >= settings.maxToolRounds || result.inputTokens >= settings.toolTokenBudget || left < MIN_ROOM_TOKENS;
    if (mustAnswer && result.rounds > 0) appendNote(messages, LAST_ROUND_NOTE);
    // A separator between what the model said before its tool calls and what it says after.
    if (result.text && !result.text.endsWith('\n\n')) callbacks.onText('\n\n');
    const completion = await model.complete({
      model: settings.model,
      maxTokens: settings.maxTokens,
      system: request.system,
      messages: markCacheBreakpoint(messages),
      ...(specs.length ? { tools: specs, toolChoice: mustAnswer ? 'none' as const : 'auto' as const } : {}),
    }, callbacks, signal);
    result.rounds++;
    result.model = completion.model;
    result.inputTokens += completion.inputTokens;
    result.lastInputTokens = completion.inputTokens;
    result.cacheReadTokens += completion.cacheReadTokens ?? 0;
    result.outputTokens += completion.outputTokens;
    addAttempts(result.attempts, completion.attempts);
    const calls = completion.toolCalls ?? [];
    if (!calls.length || mustAnswer) {
      result.text = result.text.trimEnd();
      return result;
    }
    messages.push({ role: 'assistant', content: [...(completion.text ? [{ type: 'text' as const, text: completion.text }] : []), ...calls.map((call) => ({ type: 'tool_use' as const, ...call }))] });
    const results: ContentBlock[] = [];
    for (const call of calls) {
      const tool = byName.get(call.name);
      const label = tool ? tool.label(call.input) : `Called ${call.name}`;
      events.onToolStep?.({ id: call.id, label });
      const outcome = tool ? await runTool(tool, call, signal) : unknownTool(call, tools);
      for (const citation of outcome.read ?? []) result.read.add(citation);
      const step: ToolStep = { tool: call.name, input: call.input, label, ok: outcome.ok, summary: outcome.summary, output: cap(outcome.text) };
      request.steps.push(step);
      events.onToolStep?.({ id: call.id, label, step });
      results.push({ type: 'tool_result', toolUseId: call.id, content: fenced(call.name, fitted(outcome, left / calls.length / 2)), isError: !outcome.ok });
    }
    messages.push({ role: 'user', content: results });
  }
}

/** Below this many tokens of room, no further tool call is offered. */
const MIN_ROOM_TOKENS = 512;
/** Characters per token when cutting text to a token count (on the short side, so the cut fits). */
const CUT_CHARS_PER_TOKEN = 3;

/** The input tokens left for more messages, by the model's count; unlimited without a limit. */
function inputRoom(settings: ToolLoopSettings, system: readonly SystemBlock[], tools: readonly ToolSpec[]): (messages: readonly ChatMessage[]) => number {
  const { inputLimit, countTokens } = settings;
  if (!inputLimit || !countTokens) return () => Infinity;
  return (messages) => inputLimit - requestTokens(countTokens, { system, messages, tools });
}

/** A tool result cut to `tokens`, saying so, when the window has no room for all of it. */
function fitted(result: ToolResult, tokens: number): ToolResult {
  const chars = Math.floor(tokens * CUT_CHARS_PER_TOKEN);
  if (!Number.isFinite(chars) || result.text.length <= chars) return result;
  return { ...result, text: `${result.text.slice(0, Math.max(0, chars))}\n[… cut to fit the model's context window]` };
}

async function runTool(tool: WikiTool, call: ToolCall, signal?: AbortSignal): Promise<ToolResult> {
  const result = await tool.run(call.input, signal);
  if (signal?.aborted) throw new LlmError('cancelled', 'Stopped.');
  return result;
}

function unknownTool(call: ToolCall, tools: readonly WikiTool[]): ToolResult {
  return { ok: false, text: `There is no tool named ${JSON.stringify(call.name)}. The tools are: ${tools.map((tool) => tool.name).join(', ')}.`, summary: 'no such tool' };
}

/** Tool output is data from the repository: fenced, so it cannot pose as our own framing. */
function fenced(tool: string, result: ToolResult): string {
  return `<tool_output tool="${tool}">\n${neutralise(result.text, 'tool_output')}\n</tool_output>`;
}

function cap(text: string): string {
  return text.length <= STEP_OUTPUT_MAX_CHARS ? text : `${text.slice(0, STEP_OUTPUT_MAX_CHARS)}\n[… ${text.length - STEP_OUTPUT_MAX_CHARS} more characters]`;
}

/** The same messages with the last one marked: each round reads everything before it from the cache. */
function markCacheBreakpoint(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message, i) => (i === messages.length - 1 ? { ...message, cache: true } : { ...message, cache: false }));
}

function appendNote(messages: ChatMessage[], note: string): void {
  const last = messages[messages.length - 1];
  if (last?.role !== 'user' || typeof last.content === 'string') return;
  messages[messages.length - 1] = { ...last, content: [...last.content, { type: 'text', text: note }] };
}
