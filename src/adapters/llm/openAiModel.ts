import type OpenAI from 'openai';
import { requestTokens } from '../../core/chat/promptBudget';
import { knownContextWindow } from '../../core/llm/contextWindows';
import { kindOfStatus } from '../../core/llm/errorKinds';
import { defaultTraits } from '../../core/llm/fallbackChain';
import { LlmError, type ChatMessage, type Completion, type CompletionRequest, type LanguageModel, type ModelTraits, type StreamCallbacks, type ToolCall } from '../../core/llm/languageModel';
import { assembleToolCalls, type ToolCallFragment } from './toolCallDeltas';
import { isSocketError, parseToolInput, StreamEndedEarly } from './streamParts';
import { openAiTokenCounter } from './tokenCounter';

type Sdk = typeof import('openai');
type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
type MessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export interface OpenAiModelOptions {
  /** `openai`: the OpenAI API or a server that speaks it; `azure`: an Azure OpenAI deployment. */
  provider: 'openai' | 'azure';
  /** The model (OpenAI) or deployment (Azure). */
  model: string;
  /** May be empty for a local server that takes none. */
  apiKey: string;
  /** OpenAI: empty for the OpenAI API, else an OpenAI-compatible server (…/v1). */
  baseURL?: string;
  /** Azure: https://RESOURCE.openai.azure.com/ */
  endpoint?: string;
  /** Azure: required, e.g. 2024-10-21. */
  apiVersion?: string;
  /** The window to report, when a setting names one; else the table of known models. */
  contextWindow?: number;
  /** The SDK's retries of 429, 5xx and dropped connections (default 2). */
  maxRetries?: number;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
/** Models whose tokenizer is o200k count exactly; for others (an unknown server's model) the margin covers the difference. */
const OWN_TOKENIZER_MARGIN = 0.05;
const OTHER_TOKENIZER_MARGIN = 0.2;

let sdkLoading: Sdk | undefined;
const loadSdk = (): Sdk => (sdkLoading ??= require('openai') as Sdk);

/**
 * OpenAI Chat Completions through the official SDK, streamed: the OpenAI API, Azure OpenAI and
 * every server that speaks it (LM Studio, vLLM, llama.cpp, OpenRouter, a LiteLLM proxy). Retries
 * are the SDK's; the fallback chain tries the next model after them.
 */
export class OpenAiModel implements LanguageModel {
  private client?: OpenAI;
  readonly name: string;

  constructor(private readonly options: OpenAiModelOptions) {
    this.name = `${options.provider}/${options.model}`;
  }

  async describe(): Promise<ModelTraits> {
    const official = this.options.provider === 'azure' || !this.options.baseURL;
    const known = knownContextWindow({ provider: this.options.provider, model: this.options.model });
    const count = openAiTokenCounter();
    return {
      ...defaultTraits(this.name, this.options.contextWindow ?? known),
      countTokens: count,
      tokenMargin: official || known ? OWN_TOKENIZER_MARGIN : OTHER_TOKENIZER_MARGIN,
    };
  }

  async complete(request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal): Promise<Completion> {
    const client = this.connect();
    const sdk = loadSdk();
    let partial = '';
    try {
      return await this.stream(client, request, { ...callbacks, onText: (delta) => { partial += delta; callbacks.onText(delta); } }, signal);
    } catch (error) {
      throw this.classify(sdk, error, signal, partial);
    }
  }

  private connect(): OpenAI {
    if (this.client) return this.client;
    const sdk = loadSdk();
    const common = { apiKey: this.options.apiKey || 'none', maxRetries: this.options.maxRetries ?? 2, timeout: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS };
    if (this.options.provider === 'azure') {
      if (!this.options.endpoint) throw new LlmError('other', `${this.name} needs the Azure OpenAI endpoint: set repoWiki.llm.azure.endpoint (the CLI reads AZURE_OPENAI_ENDPOINT), e.g. https://RESOURCE.openai.azure.com/.`);
      if (!this.options.apiVersion) throw new LlmError('other', `${this.name} needs an Azure OpenAI api-version: set repoWiki.llm.azure.apiVersion (the CLI reads OPENAI_API_VERSION), e.g. 2024-10-21.`);
      this.client = new sdk.AzureOpenAI({ ...common, endpoint: this.options.endpoint, apiVersion: this.options.apiVersion, deployment: this.options.model });
    } else {
      // Named, never left to the SDK, which would read OPENAI_BASE_URL itself.
      this.client = new sdk.OpenAI({ ...common, baseURL: this.options.baseURL || 'https://api.openai.com/v1' });
    }
    return this.client;
  }

  private async stream(client: OpenAI, request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal): Promise<Completion> {
    const tools = request.tools?.map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }));
    // The OpenAI API and Azure take max_completion_tokens (reasoning models refuse max_tokens); other servers know max_tokens.
    const official = this.options.provider === 'azure' || !this.options.baseURL;
    const params: ChatParams = {
      model: request.model,
      messages: toMessages(request),
      stream: true,
      stream_options: { include_usage: true },
      ...(official ? { max_completion_tokens: request.maxTokens } : { max_tokens: request.maxTokens }),
      ...(tools?.length ? { tools, tool_choice: request.toolChoice ?? 'auto' } : {}),
    };
    const { data: chunks, response } = await client.chat.completions.create(params, { signal }).withResponse();
    if (/text\/html/i.test(response.headers.get('content-type') ?? '')) throw new HtmlAnswer();
    let text = '';
    let model = request.model;
    let inputTokens: number | undefined;
    let cacheReadTokens = 0;
    let outputTokens = 0;
    let stopReason: string | null = null;
    const fragments: ToolCallFragment[] = [];
    for await (const chunk of chunks) {
      if (chunk.model) model = chunk.model;
      if (chunk.usage) {
        inputTokens = chunk.usage.prompt_tokens;
        outputTokens = chunk.usage.completion_tokens;
        cacheReadTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      }
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) {
        text += delta.content;
        callbacks.onText(delta.content);
      }
      for (const fragment of delta?.tool_calls ?? []) {
        fragments.push(fragment);
        if (fragment.function?.name) callbacks.onToolCall?.({ id: fragment.id ?? '', name: fragment.function.name });
      }
      if (choice.finish_reason) stopReason = choice.finish_reason;
    }
    if (signal?.aborted) throw new LlmError('cancelled', 'Stopped.', undefined, text || undefined);
    if (!stopReason) throw new StreamEndedEarly();
    if (inputTokens === undefined) {
      // A server that reports no usage: counted here, so totals and the near-limit warning still work.
      const count = openAiTokenCounter();
      inputTokens = requestTokens(count, request);
      outputTokens = count(text) + count(fragments.map((fragment) => fragment.function?.arguments ?? '').join(''));
    }
    const toolCalls: ToolCall[] = assembleToolCalls(fragments).map((call) => ({ id: call.id, name: call.name, input: parseToolInput(call.arguments) }));
    return { text, toolCalls, model: `${this.options.provider}/${model}`, inputTokens, cacheReadTokens, outputTokens, stopReason: stopReason === 'tool_calls' ? 'tool_use' : stopReason };
  }

  private where(): string {
    return this.options.provider === 'azure' ? `Azure OpenAI at ${this.options.endpoint}` : this.options.baseURL ? `the OpenAI-compatible server at ${this.options.baseURL}` : 'the OpenAI API';
  }

  private setting(): string {
    return this.options.provider === 'azure' ? 'repoWiki.llm.azure.endpoint (AZURE_OPENAI_ENDPOINT)' : 'repoWiki.llm.openai.baseUrl (OPENAI_BASE_URL)';
  }

  /** An LlmError of the kind every provider uses, saying what to do next; the key never appears in it. */
  private classify(sdk: Sdk, error: unknown, signal: AbortSignal | undefined, partial: string): LlmError {
    const partialText = partial || undefined;
    const fail = (kind: LlmError['kind'], message: string, status?: number) => new LlmError(kind, this.redact(message), status, partialText);
    const where = this.where();
    if (error instanceof LlmError) return error;
    if (signal?.aborted || error instanceof sdk.APIUserAbortError) return fail('cancelled', 'Stopped.');
    if (error instanceof HtmlAnswer) return fail('other', `${where} answered with a web page, not the API. Check ${this.setting()}: an OpenAI-compatible base URL usually ends in /v1.`, 200);
    if (error instanceof sdk.APIConnectionTimeoutError) return fail('network', `${where} did not answer in time. Retry, or check ${this.setting()}.`);
    if (error instanceof StreamEndedEarly || isSocketError(error) || (partial && error instanceof sdk.APIConnectionError)) {
      return partial
        ? fail('network', `The answer was cut off: the connection to ${where} dropped. Check your connection, then ask again.`)
        : fail('network', `The connection to ${where} dropped before the answer was complete. Check your connection, then retry.`);
    }
    if (error instanceof sdk.APIConnectionError) return fail('network', `Could not reach ${where}. Check your connection and ${this.setting()}, then retry.`);
    if (error instanceof sdk.APIError && error.status) {
      const status = error.status;
      const detail = apiMessage(error);
      const kind = kindOfStatus(status, `${detail} ${error.code ?? ''}`);
      const said = detail ? ` (${detail})` : '';
      if (kind === 'auth') {
        const key = this.options.provider === 'azure' ? 'AZURE_OPENAI_API_KEY' : 'OPENAI_API_KEY';
        return fail('auth', `${where} rejected the API key (HTTP ${status}). Run "Repo Wiki: Set up a model…" and enter a valid key (the CLI reads ${key}).`, status);
      }
      if (kind === 'model-not-found') {
        const what = this.options.provider === 'azure' ? `the deployment "${this.options.model}"` : `the model "${this.options.model}"`;
        return fail('model-not-found', `${where} has no ${what}${said}. Check the model name in repoWiki.llm.model (the CLI's --model).`, status);
      }
      if (kind === 'context-too-long') return fail(kind, `The question and the wiki passages sent with it are too long for ${this.name}${said}. Ask a narrower question or start a new conversation.`, status);
      if (kind === 'rate-limit') return fail(kind, `${where} is rate limiting this key (HTTP 429)${said}. Wait a minute, then retry.`, status);
      if (kind === 'overloaded') return fail(kind, `${where} is overloaded (HTTP ${status}). Retry in a little while.`, status);
      return fail(kind, `${where} answered HTTP ${status}${said}.`, status);
    }
    if (error instanceof SyntaxError) return fail('other', `${where} answered something that is not the API's JSON (${error.message}). Check ${this.setting()}.`);
    return fail('other', `The request to ${where} failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  private redact(message: string): string {
    const key = this.options.apiKey;
    return key && key.length >= 8 ? message.split(key).join('[redacted]') : message;
  }
}

/** The system prompt as a system message; tool calls and their results as the API pairs them. */
function toMessages(request: CompletionRequest): MessageParam[] {
  const messages: MessageParam[] = [{ role: 'system', content: request.system.map((block) => block.text).join('\n\n') }];
  for (const message of request.messages) messages.push(...toMessageParams(message));
  return messages;
}

function toMessageParams(message: ChatMessage): MessageParam[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  if (message.role === 'assistant') {
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
    const calls = message.content.flatMap((block) => (block.type === 'tool_use' ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } }] : []));
    return [{ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) }];
  }
  // Tool results answer the calls first; any text of the same turn follows as a user message.
  const results: MessageParam[] = message.content.flatMap((block) => (block.type === 'tool_result' ? [{ role: 'tool' as const, tool_call_id: block.toolUseId, content: block.isError ? `Error: ${block.content}` : block.content }] : []));
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  return [...results, ...(text ? [{ role: 'user' as const, content: text }] : [])];
}

function apiMessage(error: { error?: unknown; message: string }): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : '';
}

/** The server answered an HTML page: a base URL that is not the API's. */
class HtmlAnswer extends Error {}
