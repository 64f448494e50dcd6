import type { ChatResponse, Message, Ollama, ShowResponse, Tool } from 'ollama';
import { knownContextWindow } from '../../core/llm/contextWindows';
import { kindOfStatus } from '../../core/llm/errorKinds';
import { defaultTraits } from '../../core/llm/fallbackChain';
import { LlmError, type ChatMessage, type Completion, type CompletionRequest, type LanguageModel, type ModelTraits, type StreamCallbacks, type ToolCall } from '../../core/llm/languageModel';
import { isSocketError, StreamEndedEarly } from './streamParts';
import { openAiTokenCounter } from './tokenCounter';

type Sdk = typeof import('ollama');

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
/**
 * The most context asked of Ollama unless a setting asks more: it allocates memory for all of
 * `num_ctx`, and a model's trained window (128k for many) would not fit most machines.
 */
const DEFAULT_CONTEXT_CAP = 32_768;
/** Ollama's models use their own tokenizers; o200k counts them closely enough with this margin. */
const TOKEN_MARGIN = 0.2;
/** What /api/show said, kept a while: a chain is built for every turn, and a model's window rarely changes. */
const SHOWN_FOR_MS = 5 * 60_000;
const shown = new Map<string, { traits: Promise<ModelTraits>; at: number }>();

export interface OllamaModelOptions {
  model: string;
  /** Default: OLLAMA_HOST's value as the factory read it, else http://127.0.0.1:11434. */
  host?: string;
  /** A window the user set: used as is, and sent as num_ctx. */
  contextWindow?: number;
}

let sdkLoading: Sdk | undefined;
const loadSdk = (): Sdk => (sdkLoading ??= require('ollama') as Sdk);

/** A client whose every request stops when `signal` aborts (the SDK only aborts streams it holds). */
function client(host: string, signal?: AbortSignal): Ollama {
  const sdk = loadSdk();
  return new sdk.Ollama({
    host,
    fetch: (input, init) => fetch(input, { ...init, signal: signal && init?.signal ? AbortSignal.any([signal, init.signal]) : signal ?? init?.signal }),
  });
}

/** The models the Ollama server at `host` has pulled (`/api/tags`), for "Set up a model…". */
export async function listOllamaModels(host = DEFAULT_OLLAMA_HOST, signal?: AbortSignal): Promise<string[]> {
  const { models } = await client(host, signal).list();
  return models.map((model) => model.name).sort();
}

/**
 * Ollama's native chat API through the official SDK, streamed as NDJSON. It asks `/api/show` for
 * the model's window and whether it can call tools, and sends `num_ctx` so the server does not
 * silently cut the prompt to its default 2,048 to 4,096 tokens.
 */
export class OllamaModel implements LanguageModel {
  readonly name: string;
  private readonly host: string;

  constructor(private readonly options: OllamaModelOptions) {
    this.name = `ollama/${options.model}`;
    this.host = options.host || DEFAULT_OLLAMA_HOST;
  }

  describe(signal?: AbortSignal): Promise<ModelTraits> {
    const key = `${this.host}\n${this.options.model}\n${this.options.contextWindow ?? ''}`;
    const known = shown.get(key);
    if (known && Date.now() - known.at < SHOWN_FOR_MS) return known.traits;
    const traits = this.show(signal).catch((error: unknown) => {
      shown.delete(key); // asked again next time: the server may be starting
      throw this.classify(error, signal, '');
    });
    shown.set(key, { traits, at: Date.now() });
    return traits;
  }

  private async show(signal?: AbortSignal): Promise<ModelTraits> {
    const shown: ShowResponse = await client(this.host, signal).show({ model: this.options.model });
    const info = (shown.model_info ?? {}) as unknown as Record<string, unknown>;
    const trained = Object.entries(info).find(([key, value]) => key.endsWith('.context_length') && typeof value === 'number')?.[1] as number | undefined;
    const window = this.options.contextWindow ?? Math.min(trained ?? knownContextWindow({ provider: 'ollama', model: this.options.model }) ?? DEFAULT_CONTEXT_CAP, DEFAULT_CONTEXT_CAP);
    // A server too old to report capabilities is asked for tools; it refuses clearly if the model has none.
    const tools = Array.isArray(shown.capabilities) ? shown.capabilities.includes('tools') : true;
    return { ...defaultTraits(this.name, window), tools, countTokens: openAiTokenCounter(), tokenMargin: TOKEN_MARGIN };
  }

  async complete(request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal): Promise<Completion> {
    let partial = '';
    try {
      const traits = await this.describe(signal);
      // A model that cannot call tools answers in one shot: its tools are not sent.
      const tools: Tool[] | undefined = traits.tools && request.toolChoice !== 'none'
        ? request.tools?.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema as Tool['function']['parameters'] } }))
        : undefined;
      const chunks = await client(this.host, signal).chat({
        model: request.model,
        messages: toMessages(request),
        stream: true,
        ...(tools?.length ? { tools } : {}),
        options: { num_ctx: traits.contextWindow, num_predict: request.maxTokens },
      });
      let text = '';
      let last: ChatResponse | undefined;
      const toolCalls: ToolCall[] = [];
      for await (const chunk of chunks) {
        last = chunk;
        const delta = chunk.message?.content ?? '';
        if (delta) {
          text += delta;
          partial = text;
          callbacks.onText(delta);
        }
        for (const call of chunk.message?.tool_calls ?? []) {
          // Ollama sends calls whole and without ids; the results pair with them by these.
          const id = `call_${toolCalls.length + 1}`;
          callbacks.onToolCall?.({ id, name: call.function.name });
          toolCalls.push({ id, name: call.function.name, input: call.function.arguments ?? {} });
        }
      }
      if (signal?.aborted) throw new LlmError('cancelled', 'Stopped.', undefined, text || undefined);
      if (!last?.done) throw new StreamEndedEarly();
      return {
        text, toolCalls, model: this.name, inputTokens: last.prompt_eval_count ?? 0, outputTokens: last.eval_count ?? 0,
        stopReason: toolCalls.length ? 'tool_use' : last.done_reason === 'length' ? 'max_tokens' : 'end_turn',
      };
    } catch (error) {
      throw this.classify(error, signal, partial);
    }
  }

  private classify(error: unknown, signal: AbortSignal | undefined, partial: string): LlmError {
    const partialText = partial || undefined;
    const fail = (kind: LlmError['kind'], message: string, status?: number) => new LlmError(kind, message, status, partialText);
    const where = `Ollama at ${this.host}`;
    if (error instanceof LlmError) return error;
    if (signal?.aborted || (error instanceof Error && error.name === 'AbortError')) return fail('cancelled', 'Stopped.');
    if (error instanceof StreamEndedEarly || (partial && isSocketError(error))) {
      return partial
        ? fail('network', `The answer was cut off: the connection to ${where} dropped. Check that Ollama is still running, then ask again.`)
        : fail('network', `The connection to ${where} dropped before the answer was complete. Check that Ollama is running, then retry.`);
    }
    const status = (error as { status_code?: number }).status_code;
    const detail = error instanceof Error ? error.message : String(error);
    if (typeof status === 'number') {
      const kind = kindOfStatus(status, detail);
      if (kind === 'model-not-found') return fail(kind, `${where} does not have the model "${this.options.model}" (${detail}). Run \`ollama pull ${this.options.model}\`, or pick one it has with "Repo Wiki: Set up a model…".`, status);
      if (status === 400 && /does not support tools/i.test(detail)) return fail('other', `${this.name} cannot call tools (${detail}).`, status);
      if (kind === 'context-too-long') return fail(kind, `The question and the wiki passages sent with it are too long for ${this.name} (${detail}). Ask a narrower question, start a new conversation, or raise repoWiki.llm.contextWindow.`, status);
      if (/<html|<!doctype/i.test(detail)) return fail('other', `${where} answered with a web page, not Ollama's API (HTTP ${status}). Check OLLAMA_HOST or repoWiki.llm.ollama.host.`, status);
      return fail(kind, `${where} answered HTTP ${status}: ${detail}`, status);
    }
    if (isSocketError(error) || /fetch failed/i.test(detail)) {
      return fail('network', `Could not reach ${where}. Start it with \`ollama serve\`, or check OLLAMA_HOST or repoWiki.llm.ollama.host.`);
    }
    if (error instanceof SyntaxError) return fail('other', `${where} answered something that is not Ollama's API (${detail}). Check OLLAMA_HOST or repoWiki.llm.ollama.host.`);
    // An `{"error": …}` line inside the stream, which the SDK throws as a plain Error.
    return fail('other', `${where} failed: ${detail}`);
  }
}

/** The system prompt as a system message; tool calls and results in Ollama's shape (it has no call ids). */
function toMessages(request: CompletionRequest): Message[] {
  const messages: Message[] = [{ role: 'system', content: request.system.map((block) => block.text).join('\n\n') }];
  const names = new Map<string, string>();
  for (const message of request.messages) messages.push(...toOllamaMessages(message, names));
  return messages;
}

function toOllamaMessages(message: ChatMessage, names: Map<string, string>): Message[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  if (message.role === 'assistant') {
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
    const calls = message.content.flatMap((block) => {
      if (block.type !== 'tool_use') return [];
      names.set(block.id, block.name);
      return [{ function: { name: block.name, arguments: (typeof block.input === 'object' && block.input ? block.input : {}) as Record<string, unknown> } }];
    });
    return [{ role: 'assistant', content: text, ...(calls.length ? { tool_calls: calls } : {}) }];
  }
  const results: Message[] = message.content.flatMap((block) => (block.type === 'tool_result'
    ? [{ role: 'tool', content: block.isError ? `Error: ${block.content}` : block.content, ...(names.has(block.toolUseId) ? { tool_name: names.get(block.toolUseId) } : {}) }]
    : []));
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  return [...results, ...(text ? [{ role: 'user', content: text }] : [])];
}
