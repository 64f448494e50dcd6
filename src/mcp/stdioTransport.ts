import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The longest JSON-RPC line read, as the SDK's own reader has it (STDIO_DEFAULT_MAX_BUFFER_SIZE). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Kept of an over-long line's start and end, where its id is. */
const ID_WINDOW = 1024;
const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*,/;
const TAIL_ID = /[{,]\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$/;
const guarded = new WeakSet<StdioServerTransport>();

/**
 * The SDK's stdio transport with a reader that answers what the SDK's does not: a line over
 * `maxBytes` is an Invalid Request error (the SDK's reader closed the transport on it, and the
 * server exited 0 without a word), a line that is not JSON a Parse error (-32700; the SDK's only
 * logged it), JSON that is no JSON-RPC message an Invalid Request. Each is also reported through
 * `onerror` (logged to stderr by `repo-wiki mcp`), and the transport goes on serving.
 * Writing, starting and closing stay the SDK's.
 */
export class GuardedStdioServerTransport extends StdioServerTransport {
  constructor(stdin?: ConstructorParameters<typeof StdioServerTransport>[0], stdout?: ConstructorParameters<typeof StdioServerTransport>[1], maxBytes = MAX_MESSAGE_BYTES) {
    super(stdin, stdout);
    guardStdioTransport(this, maxBytes);
  }
}

/**
 * Puts the guarded reader in `transport` before it starts: `_ondata` is the stdin `data` handler
 * the SDK's `start()` attaches and `close()` detaches (a public field of its class). For a
 * transport built elsewhere as a plain StdioServerTransport, e.g. by the CLI.
 */
export function guardStdioTransport(transport: StdioServerTransport, maxBytes = MAX_MESSAGE_BYTES): void {
  if (guarded.has(transport)) return;
  guarded.add(transport);
  const reader = new JsonRpcLineReader(transport, maxBytes);
  transport._ondata = (chunk: Buffer | string) => reader.read(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
}

/** Splits stdin into lines of at most `maxBytes` and hands each JSON-RPC message on; never holds more than one line. */
class JsonRpcLineReader {
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while reading a line over the limit: its bytes are counted and dropped, but for the windows the id is looked for in. */
  private over?: { head: Buffer; tail: Buffer };

  constructor(
    private readonly transport: StdioServerTransport,
    private readonly maxBytes: number,
  ) {}

  read(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, newline < 0 ? chunk.length : newline));
      if (newline < 0) return;
      this.endLine();
      start = newline + 1;
    }
  }

  private take(piece: Buffer): void {
    if (!piece.length) return;
    this.size += piece.length;
    if (this.over) {
      this.over.tail = lastBytes(Buffer.concat([this.over.tail, piece]), ID_WINDOW);
    } else if (this.size > this.maxBytes) {
      const kept = Buffer.concat([...this.parts, piece]);
      this.over = { head: Buffer.from(kept.subarray(0, ID_WINDOW)), tail: lastBytes(kept, ID_WINDOW) };
      this.parts = [];
    } else this.parts.push(piece);
  }

  private endLine(): void {
    const { over, size } = this;
    const line = over ? '' : Buffer.concat(this.parts, size).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    this.over = undefined;
    if (over) return this.tooLarge(size, over);
    if (line.trim()) this.message(line);
  }

  private tooLarge(size: number, { head, tail }: { head: Buffer; tail: Buffer }): void {
    const id = idIn(HEAD_ID, head.toString('utf8')) ?? idIn(TAIL_ID, tail.toString('utf8').replace(/\r$/, ''));
    const limit = `the limit of one JSON-RPC message is ${this.maxBytes} bytes (${megabytes(this.maxBytes)})`;
    const request = id === undefined ? '' : ` (request id ${JSON.stringify(id)})`;
    this.reject(id, ErrorCode.InvalidRequest, `Invalid Request: the message is ${size} bytes long, and was not read; ${limit}.`, `dropped a message of ${size} bytes${request}: ${limit}`);
  }

  private message(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const reason = (error as Error).message.slice(0, 200);
      return this.reject(undefined, ErrorCode.ParseError, `Parse error: a line that is not JSON (${reason}).`, `dropped a line that is not JSON: ${reason}`);
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = isRecord(value) && isRequestId(value.id) ? value.id : undefined;
      // A malformed response of the client's is logged, never answered: only requests get answers.
      if (isRecord(value) && !('method' in value) && ('result' in value || 'error' in value)) return this.log(`dropped a malformed JSON-RPC response${id === undefined ? '' : ` (id ${JSON.stringify(id)})`}`);
      const what = Array.isArray(value) ? 'a batch (an array), which MCP does not take' : 'JSON that is no JSON-RPC 2.0 request or notification';
      return this.reject(id, ErrorCode.InvalidRequest, `Invalid Request: ${what}.`, `dropped ${what}`);
    }
    try {
      this.transport.onmessage?.(parsed.data);
    } catch (error) {
      this.transport.onerror?.(error as Error);
    }
  }

  /** Answers with a JSON-RPC error, its id the request's where one was found (MCP leaves it out otherwise), and logs `logged`. */
  private reject(id: RequestId | undefined, code: number, message: string, logged: string): void {
    this.log(logged);
    const answer = { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code, message } } as JSONRPCMessage;
    this.transport.send(answer).catch((error: unknown) => this.transport.onerror?.(error as Error));
  }

  private log(text: string): void {
    this.transport.onerror?.(new Error(text));
  }
}

function idIn(pattern: RegExp, text: string): RequestId | undefined {
  const found = pattern.exec(text)?.[1];
  if (found === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(found);
    return isRequestId(id) ? id : undefined;
  } catch {
    return undefined; // a string with a bad escape: no id then
  }
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lastBytes(buffer: Buffer, count: number): Buffer {
  return Buffer.from(buffer.subarray(Math.max(0, buffer.length - count)));
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}
