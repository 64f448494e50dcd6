import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { LlmError, type Completion, type CompletionRequest, type LanguageModel, type StreamCallbacks } from '../../core/llm';

export interface AnthropicModelOptions {
  apiKey: string;
  /** Empty or absent: the SDK's default endpoint (or ANTHROPIC_BASE_URL). */
  baseURL?: string;
  /** Retries of 429 and 529 before giving up. */
  maxRetries?: number;
  timeoutMs?: number;
  /** Waits between retries; tests replace it so they do not sleep. */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
}

const RETRYABLE = new Set([429, 529]);
const MAX_BACKOFF_MS = 30_000;

/** The Messages API through the official SDK, streamed; our own retry loop so the user can be told. */
export class AnthropicModel implements LanguageModel {
  private readonly client: Anthropic;
  private readonly maxRetries: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: AnthropicModelOptions) {
    // maxRetries 0: the SDK would retry silently; we retry ourselves and report each wait.
    this.client = new Anthropic({ apiKey: options.apiKey, baseURL: options.baseURL || undefined, maxRetries: 0, timeout: options.timeoutMs ?? 120_000 });
    this.maxRetries = options.maxRetries ?? 3;
    this.sleep = options.sleep ?? abortableSleep;
  }

  async complete(request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal): Promise<Completion> {
    for (let attempt = 0; ; attempt++) {
      let streamed = false;
      try {
        return await this.stream(request, (delta) => {
          streamed = true;
          callbacks.onText(delta);
        }, signal);
      } catch (error) {
        // Never retry once text has streamed: the answer would repeat.
        const status = error instanceof APIError ? error.status : undefined;
        if (!streamed && status !== undefined && RETRYABLE.has(status) && attempt < this.maxRetries && !signal?.aborted) {
          const delayMs = retryDelay(error as APIError, attempt);
          callbacks.onRetry?.({ attempt: attempt + 1, delayMs, status });
          try {
            await this.sleep(delayMs, signal);
          } catch {
            throw new LlmError('cancelled', 'Stopped.');
          }
          continue;
        }
        throw this.classify(error, signal);
      }
    }
  }

  private async stream(request: CompletionRequest, onText: (delta: string) => void, signal?: AbortSignal): Promise<Completion> {
    const events = await this.client.messages.create({
      model: request.model,
      max_tokens: request.maxTokens,
      system: request.system.map((block) => ({ type: 'text' as const, text: block.text, ...(block.cache ? { cache_control: { type: 'ephemeral' as const } } : {}) })),
      messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
      stream: true,
    }, { signal });
    let text = '';
    let model = request.model;
    let inputTokens = 0;
    let outputTokens = 0;
    let stopReason: string | null = null;
    for await (const event of events) {
      if (event.type === 'message_start') {
        model = event.message.model;
        const usage = event.message.usage;
        inputTokens = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
        outputTokens = usage.output_tokens;
      } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
        text += event.delta.text;
        onText(event.delta.text);
      } else if (event.type === 'message_delta') {
        outputTokens = event.usage.output_tokens;
        stopReason = event.delta.stop_reason;
      }
    }
    // An abort can end the event stream quietly instead of throwing.
    if (signal?.aborted) throw new LlmError('cancelled', 'Stopped.');
    if (stopReason === null) throw new LlmError('network', 'The answer stream ended early. Check your connection, then retry.');
    return { text, model, inputTokens, outputTokens, stopReason };
  }

  /** An LlmError with the next step for the user; the key never appears in it. */
  private classify(error: unknown, signal?: AbortSignal): LlmError {
    if (error instanceof LlmError) return error;
    if (signal?.aborted || error instanceof APIUserAbortError) return new LlmError('cancelled', 'Stopped.');
    const endpoint = this.options.baseURL || 'the Anthropic API';
    if (error instanceof APIConnectionError) {
      return new LlmError('network', `Could not reach ${endpoint}. Check your connection or the repoWiki.llm.baseUrl setting, then retry.`);
    }
    if (error instanceof APIError && error.status !== undefined) {
      const detail = error.apiMessage ?? '';
      if (error.status === 401 || error.status === 403) {
        return new LlmError('auth', 'The API key was rejected. Run "Repo Wiki: Set API key" with a valid Anthropic key.', error.status);
      }
      if (error.status === 429) return new LlmError('rate-limit', 'The API is rate limiting requests. Wait a minute, then retry.', 429);
      if (error.status === 529) return new LlmError('overloaded', 'The API is overloaded right now. Retry in a little while.', 529);
      if (error.status === 400 && /prompt is too long|context (length|window)|too many tokens/i.test(detail)) {
        return new LlmError('context-too-long', 'The question and its context are too long for the model.', 400);
      }
      return new LlmError('other', `The API answered ${error.status}: ${detail || 'no details'}.`, error.status);
    }
    // A socket cut mid-stream surfaces as a plain error from the stream reader.
    return new LlmError('network', `The connection to ${endpoint} failed: ${(error as Error).message ?? String(error)}. Retry when the connection is back.`);
  }
}

/** `retry-after-ms` or `retry-after` (seconds) when the API sends them, else exponential backoff with jitter. */
function retryDelay(error: APIError, attempt: number): number {
  const headers = error.headers;
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return Math.min(ms, MAX_BACKOFF_MS);
  const seconds = Number(headers?.get('retry-after'));
  if (Number.isFinite(seconds) && seconds > 0) return Math.min(seconds * 1000, MAX_BACKOFF_MS);
  return Math.min(1000 * 2 ** attempt, MAX_BACKOFF_MS) * (0.75 + Math.random() * 0.5);
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    }, { once: true });
  });
}
