import type Anthropic from '@anthropic-ai/sdk';
import { MODEL_DEFAULTS } from '../../core/defaults';
import { knownContextWindow } from '../../core/llm/contextWindows';
import { kindOfStatus } from '../../core/llm/errorKinds';
import { defaultTraits } from '../../core/llm/fallbackChain';
import { parseToolInput, isSocketError, StreamEndedEarly } from './streamParts';
import { LlmError, type ChatMessage, type Completion, type CompletionRequest, type LanguageModel, type ModelTraits, type StreamCallbacks, type ToolCall } from '../../core/llm/languageModel';

type Sdk = typeof import('@anthropic-ai/sdk');

export interface AnthropicModelOptions {
  apiKey: string;
  /** The model this adapter describes (requests name their own). */
  model?: string;
  /** The window to report, when a setting names one; else the table of known models. */
  contextWindow?: number;
  /** Empty or absent: ANTHROPIC_BASE_URL, else the SDK's default endpoint. */
  baseURL?: string;
  /** Retries of a 429 or 529 before giving up (default 3). A failed connection is retried once, separately. */
  maxRetries?: number;
  /** How long to wait for the response to start (default 120 s). */
  timeoutMs?: number;
  /** Waits between retries; tests replace it so they do not sleep. Should reject when `signal` aborts. */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
}

const DEFAULT_MAX_RETRIES = 3;
const CONNECTION_RETRIES = 1;
const DEFAULT_TIMEOUT_MS = 120_000;
const BASE_DELAY_MS = 1000;
const MAX_DELAY_MS = 60_000;

/** The status each API error type stands for, for errors sent as an `error` event inside a 200 stream. */
const STATUS_OF_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

let sdkLoading: Promise<Sdk> | undefined;
/** The SDK loads on the first request, so merely constructing the model (or activating) costs nothing. */
const loadSdk = (): Promise<Sdk> => (sdkLoading ??= import('@anthropic-ai/sdk'));

/**
 * The Messages API through the official SDK, streamed. The SDK's own retries are off: ours report
 * each wait through `onRetry`, and never repeat a request once text has streamed.
 */
export class AnthropicModel implements LanguageModel {
  private client?: Anthropic;
  private readonly maxRetries: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: AnthropicModelOptions) {
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.sleep = options.sleep ?? abortableSleep;
  }

  /** Claude models all call tools; their tokenizer is not public, so counts are estimated with a margin. */
  async describe(): Promise<ModelTraits> {
    const model = this.options.model ?? MODEL_DEFAULTS.model;
    return { ...defaultTraits(`anthropic/${model}`, this.options.contextWindow ?? knownContextWindow({ provider: 'anthropic', model }) ?? MODEL_DEFAULTS.contextWindowTokens) };
  }

  async complete(request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal): Promise<Completion> {
    const sdk = await loadSdk().catch((error: Error) => {
      throw new LlmError('other', `Could not load the Anthropic SDK: ${error.message}. Reinstall the extension.`);
    });
    const client = (this.client ??= new sdk.default({
      apiKey: this.options.apiKey,
      baseURL: this.options.baseURL || undefined,
      maxRetries: 0,
      timeout: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    }));
    let apiRetries = 0;
    let connectionRetries = 0;
    for (;;) {
      let partial = '';
      try {
        return await this.stream(client, request, {
          ...callbacks,
          onText: (delta) => {
            partial += delta;
            callbacks.onText(delta);
          },
        }, signal);
      } catch (error) {
        const failure = this.classify(sdk, client.baseURL, error, signal, partial);
        // Retrying after text has streamed would repeat the answer, so only clean failures are retried.
        let delayMs: number | undefined;
        if (!partial && (failure.kind === 'rate-limit' || failure.kind === 'overloaded') && apiRetries < this.maxRetries) {
          delayMs = requestedDelay(error) ?? backoff(apiRetries);
          apiRetries++;
        } else if (!partial && failure.kind === 'network' && !(error instanceof sdk.APIConnectionTimeoutError) && connectionRetries < CONNECTION_RETRIES) {
          delayMs = backoff(connectionRetries);
          connectionRetries++;
        }
        if (delayMs === undefined) throw failure;
        // Status 0: the connection failed, there was no HTTP answer.
        callbacks.onRetry?.({ attempt: apiRetries + connectionRetries, delayMs, status: failure.status ?? 0 });
        await this.sleep(delayMs, signal).catch(() => undefined);
        if (signal?.aborted) throw new LlmError('cancelled', 'Stopped.');
      }
    }
  }

  private async stream(client: Anthropic, request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal): Promise<Completion> {
    const cacheControl = { cache_control: { type: 'ephemeral' as const } };
    const tools = request.tools?.map((tool, i, all) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
      // Tools come first in the cached prefix; the system prompt's breakpoint covers them too, this one survives a system change.
      ...(i === all.length - 1 ? cacheControl : {}),
    }));
    const events = await client.messages.create({
      model: request.model,
      max_tokens: request.maxTokens,
      system: request.system.map((block) => ({ type: 'text' as const, text: block.text, ...(block.cache ? cacheControl : {}) })),
      messages: request.messages.map(toMessageParam),
      ...(tools?.length ? { tools, tool_choice: { type: request.toolChoice ?? 'auto' } } : {}),
      stream: true,
    }, { signal });
    let text = '';
    let model = request.model;
    let inputTokens = 0;
    let cacheReadTokens = 0;
    let outputTokens = 0;
    let stopReason: string | null = null;
    let stopped = false;
    const toolCalls: ToolCall[] = [];
    // Tool inputs stream as JSON fragments per content block; parsed when the block ends.
    const pendingInputs = new Map<number, { call: ToolCall; json: string }>();
    for await (const event of events) {
      if (event.type === 'message_start') {
        model = event.message.model;
        const usage = event.message.usage;
        cacheReadTokens = usage.cache_read_input_tokens ?? 0;
        inputTokens = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + cacheReadTokens;
        outputTokens = usage.output_tokens;
      } else if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
        const call = { id: event.content_block.id, name: event.content_block.name, input: {} };
        pendingInputs.set(event.index, { call, json: '' });
        callbacks.onToolCall?.({ id: call.id, name: call.name });
      } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
        text += event.delta.text;
        callbacks.onText(event.delta.text);
      } else if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
        const pending = pendingInputs.get(event.index);
        if (pending) pending.json += event.delta.partial_json;
      } else if (event.type === 'content_block_stop' && pendingInputs.has(event.index)) {
        const { call, json } = pendingInputs.get(event.index)!;
        pendingInputs.delete(event.index);
        toolCalls.push({ ...call, input: parseToolInput(json) });
      } else if (event.type === 'message_delta') {
        outputTokens = event.usage.output_tokens;
        stopReason = event.delta.stop_reason;
      } else if (event.type === 'message_stop') {
        stopped = true;
      }
    }
    // The SDK ends the event stream quietly on abort, and the stream can also just stop short.
    if (signal?.aborted) throw new LlmError('cancelled', 'Stopped.', undefined, text || undefined);
    if (!stopped) throw new StreamEndedEarly();
    return { text, toolCalls, model, inputTokens, cacheReadTokens, outputTokens, stopReason };
  }

  /** An LlmError that says what to do next; the API key never appears in it. */
  private classify(sdk: Sdk, baseURL: string, error: unknown, signal: AbortSignal | undefined, partial: string): LlmError {
    const partialText = partial || undefined;
    const fail = (kind: LlmError['kind'], message: string, status?: number) => new LlmError(kind, this.redact(message), status, partialText);
    const endpoint = `the Anthropic API at ${baseURL}`;
    if (error instanceof LlmError) return error;
    if (signal?.aborted || error instanceof sdk.APIUserAbortError) return fail('cancelled', 'Stopped.');
    if (error instanceof sdk.APIConnectionTimeoutError) {
      return fail('network', `The Anthropic API at ${baseURL} did not answer in time. Retry, or check the repoWiki.llm.baseUrl setting.`);
    }
    if (error instanceof sdk.APIConnectionError) {
      return fail('network', `Could not reach ${endpoint}. Check your connection or the repoWiki.llm.baseUrl setting, then retry.`);
    }
    if (error instanceof StreamEndedEarly || isSocketError(error)) {
      return partial
        ? fail('network', `The answer was cut off: the connection to ${endpoint} dropped. Check your connection, then ask again.`)
        : fail('network', `The connection to ${endpoint} dropped before the answer started. Check your connection, then retry.`);
    }
    if (error instanceof sdk.APIError) {
      const status = error.status ?? STATUS_OF_ERROR_TYPE[error.type ?? ''];
      const detail = error.apiMessage ?? '';
      const kind = kindOfStatus(status ?? 0, detail);
      if (kind === 'auth') {
        return fail('auth', `The API key was rejected (HTTP ${status}). Run "Repo Wiki: Set up a model…" and enter a valid Anthropic API key (the CLI reads ANTHROPIC_API_KEY).`, status);
      }
      if (kind === 'rate-limit') return fail('rate-limit', 'The Anthropic API is rate limiting this key (HTTP 429). Wait a minute, then retry.', status);
      if (kind === 'overloaded') return fail('overloaded', `The Anthropic API is overloaded (HTTP ${status}). Retry in a little while.`, status);
      if (kind === 'context-too-long') {
        return fail('context-too-long', `The question and the wiki passages sent with it are too long for the model${detail ? ` (${detail})` : ''}. Ask a narrower question or start a new conversation.`, status);
      }
      if (kind === 'model-not-found') return fail('model-not-found', `The Anthropic API has no such model${detail ? ` (${detail})` : ''}. Check the model name, e.g. anthropic/claude-sonnet-5-5.`, status);
      return fail('other', `The Anthropic API answered HTTP ${status ?? '(in the stream)'}: ${detail || error.message}`, status);
    }
    return fail('other', `The request to ${endpoint} failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  /** Belt and braces: no text that came from elsewhere may carry the key into a message or a log. */
  private redact(message: string): string {
    const key = this.options.apiKey;
    return key ? message.split(key).join('[redacted]') : message;
  }
}

function toMessageParam(message: ChatMessage): Anthropic.MessageParam {
  if (typeof message.content === 'string' && !message.cache) return { role: message.role, content: message.content };
  const blocks = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
  const content: Anthropic.ContentBlockParam[] = blocks.map((block) => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'tool_use') return { type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {} };
    return { type: 'tool_result', tool_use_id: block.toolUseId, content: block.content, ...(block.isError ? { is_error: true } : {}) };
  });
  if (message.cache && content.length) Object.assign(content[content.length - 1], { cache_control: { type: 'ephemeral' } });
  return { role: message.role, content };
}

/** The wait the API asked for, from `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
function requestedDelay(error: unknown): number | undefined {
  const headers = (error as { headers?: Headers }).headers;
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (ms > 0) return Math.min(ms, MAX_DELAY_MS);
  const retryAfter = headers?.get('retry-after');
  if (!retryAfter) return undefined;
  const seconds = Number(retryAfter);
  const delay = Number.isNaN(seconds) ? Date.parse(retryAfter) - Date.now() : seconds * 1000;
  return delay > 0 ? Math.min(delay, MAX_DELAY_MS) : undefined;
}

/** Exponential backoff with ±25% jitter, so clients that failed together do not retry together. */
function backoff(retry: number): number {
  return Math.round(Math.min(BASE_DELAY_MS * 2 ** retry, MAX_DELAY_MS) * (0.75 + Math.random() * 0.5));
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
