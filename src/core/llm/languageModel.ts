/** The language-model port: one streamed completion. Each provider's adapter implements it, and so does the fallback chain. */

export interface SystemBlock {
  text: string;
  /** Mark the end of the stable prefix for prompt caching. */
  cache?: boolean;
}

/** A call the model asked for; `input` is whatever JSON it sent (tools validate it). */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export type ContentBlock =
  | { type: 'text'; text: string }
  | ({ type: 'tool_use' } & ToolCall)
  | { type: 'tool_result'; toolUseId: string; content: string; isError: boolean };

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
  /** Mark the end of this message as a cache breakpoint (the growing prefix of a tool loop). */
  cache?: boolean;
}

/** A tool as the model sees it: the same name, description and JSON schema every surface uses. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface CompletionRequest {
  model: string;
  maxTokens: number;
  system: SystemBlock[];
  messages: ChatMessage[];
  tools?: readonly ToolSpec[];
  /** `none`: the tools stay defined (the cached prefix is kept) but the model must answer in text. */
  toolChoice?: 'auto' | 'none';
}

export interface Completion {
  text: string;
  /** Tool calls, in order; none when the model answered. */
  toolCalls?: ToolCall[];
  /** The model that answered, as the API reports it. */
  model: string;
  /** All input tokens, cached or not. */
  inputTokens: number;
  /** Of those, the ones read from the prompt cache (billed at a tenth). */
  cacheReadTokens?: number;
  outputTokens: number;
  stopReason: string | null;
  /** The models of a fallback chain that failed before this one answered, in order. */
  attempts?: ModelAttempt[];
}

/** A model that was tried and failed. */
export interface ModelAttempt {
  /** `provider/model`. */
  model: string;
  kind: LlmErrorKind;
  message: string;
}

export type LlmErrorKind =
  | 'auth' // 401/403: the key is missing or bad
  | 'rate-limit' // 429, after retries
  | 'overloaded' // 529, after retries
  | 'network' // could not reach the API, or the stream was cut
  | 'context-too-long' // the prompt does not fit the model's context
  | 'model-not-found' // the server does not have the model (e.g. not pulled into Ollama)
  | 'cancelled'
  | 'other';

/** A model failure, already classified, with what the user should do next. */
export class LlmError extends Error {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
    /** The text that had streamed before the failure, if any (a cut stream is never retried). */
    readonly partialText?: string,
    /** Every model a fallback chain tried, when this is the chain's failure. */
    readonly attempts?: ModelAttempt[],
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

/**
 * Whether `error` is an LlmError. Checks the shape, not the class: the adapter runs in its own
 * bundle, with its own copy of the class, so `instanceof` would miss it.
 */
export function isLlmError(error: unknown): error is LlmError {
  return error instanceof Error && error.name === 'LlmError' && typeof (error as Partial<LlmError>).kind === 'string';
}

export interface StreamCallbacks {
  /** Each text delta as it arrives. */
  onText(delta: string): void;
  /** A tool call has started streaming (its input follows). */
  onToolCall?(call: Pick<ToolCall, 'id' | 'name'>): void;
  /** Called before waiting to retry a 429/529 (or a failed connection, with status 0), so the user can be told. */
  onRetry?(info: { attempt: number; delayMs: number; status: number }): void;
}

/** The text of a message, whichever form its content takes. */
export function messageText(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((block) => (block.type === 'text' ? block.text : block.type === 'tool_result' ? block.content : '')).join('\n');
}

/** What a model can take, asked before its prompt is built. */
export interface ModelTraits {
  /** `provider/model`. */
  name: string;
  /** Input and output tokens together. */
  contextWindow: number;
  /** False for a model that cannot call tools: it answers in one shot. */
  tools: boolean;
  /** Tokens of `text`, by a tokenizer that fits the model, or an estimate; budgets add `tokenMargin`. */
  countTokens(text: string): number;
  /** The fraction added to counts for safety, e.g. 0.1 for a tokenizer that is not the model's own. */
  tokenMargin: number;
}

export interface LanguageModel {
  /** Streams one completion. Rejects with `LlmError`; with kind `cancelled` when `signal` aborts. */
  complete(request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal): Promise<Completion>;
  /** The model's window, tool calling and tokenizer; absent: a large window, tools, estimated counts. */
  describe?(signal?: AbortSignal): Promise<ModelTraits>;
}
