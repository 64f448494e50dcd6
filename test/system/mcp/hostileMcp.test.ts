import * as assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CLI } from '../../support/cliProcess';

const DEMO = path.resolve(__dirname, '../../../../demo');
/** The glob of issue 36: as a backtracking RegExp, it took 20 s with ten pairs; with twelve, no answer in 590 s. */
const HOSTILE_GLOB = `${'*?'.repeat(12)}:`;
const OVER_LIMIT = 11 * 1024 * 1024;

/**
 * The SDK client's side of `repo-wiki mcp` over its stdio, as StdioClientTransport is, plus what a
 * hostile or broken client does: write raw lines. Every message the server sends is kept.
 */
class RawStdioClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly received: JSONRPCMessage[] = [];
  stderr = '';
  private child?: ChildProcessWithoutNullStreams;
  private pending = '';

  constructor(private readonly args: string[]) {}

  async start(): Promise<void> {
    const child = (this.child = spawn(process.execPath, this.args, { stdio: ['pipe', 'pipe', 'pipe'] }));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (this.pending + chunk).split('\n');
      this.pending = lines.pop()!;
      for (const line of lines.filter(Boolean)) {
        const message = JSON.parse(line) as JSONRPCMessage;
        this.received.push(message);
        this.onmessage?.(message);
      }
    });
    child.on('close', () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.writeRaw(`${JSON.stringify(message)}\n`);
  }

  writeRaw(text: string): void {
    this.child!.stdin.write(text);
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.stdin.end();
    // A server stuck in a synchronous loop never reads the end of stdin: it is stopped, not left running.
    const stuck = setTimeout(() => child.kill('SIGKILL'), 5000);
    await closed;
    clearTimeout(stuck);
  }

  /** The first message the server sent after `from` (an index into `received`) that `accept`s, within `ms`. */
  async next(from: number, accept: (message: Record<string, unknown>) => boolean, ms: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.received.slice(from).find((message) => accept(message as Record<string, unknown>));
      if (found) return found as Record<string, unknown>;
      if (Date.now() > deadline) throw new Error(`no such message within ${ms} ms; received: ${JSON.stringify(this.received.slice(from)).slice(0, 500)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** `promise`'s value, and how long it took; a clear failure past `ceilingMs` rather than a hang. */
async function within<T>(ceilingMs: number, label: string, promise: Promise<T>, started = performance.now()): Promise<{ value: T; ms: number }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${label}: no answer within ${ceilingMs} ms`)), ceilingMs - (performance.now() - started))));
  try {
    const value = await Promise.race([promise, late]);
    return { value, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

function textOf(result: unknown): string {
  return ((result as CallToolResult).content[0] as { text: string }).text;
}

describe('repo-wiki mcp under hostile input (issue 36)', function () {
  this.timeout(30000);
  let ws: string;
  let transport: RawStdioClientTransport;
  let client: Client;

  before(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-mcp-hostile-'));
    fs.cpSync(DEMO, ws, { recursive: true });
    // Long file names full of matches: where the backtracking glob took longest, once per matching line.
    for (let i = 0; i < 20; i++) {
      fs.writeFileSync(path.join(ws, 'src', `${'generated'.repeat(4)}Module${i}.ts`), Array.from({ length: 20 }, (_, k) => `import { part${k} } from './part${k}';`).join('\n') + '\n');
    }
    transport = new RawStdioClientTransport([CLI, 'mcp', '--workspace', ws]);
    client = new Client({ name: 'repo-wiki-hostile-test', version: '1.0.0' });
    await client.connect(transport);
  });

  after(async () => {
    await client?.close();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('answers grep_code with a backtracking-hostile glob within 5 s, while a concurrent search_wiki answers within 2 s', async () => {
    const started = performance.now();
    const hostile = client.callTool({ name: 'grep_code', arguments: { pattern: 'import', glob: HOSTILE_GLOB } });
    const search = client.callTool({ name: 'search_wiki', arguments: { query: 'middleware order' } });
    const searched = await within(2000, 'search_wiki beside the hostile glob', search, started);
    const grepped = await within(5000, 'grep_code with the hostile glob', hostile, started);
    assert.equal(searched.value.isError, false, textOf(searched.value));
    assert.match(textOf(searched.value), /pages? for "middleware order"/);
    assert.equal(grepped.value.isError, false, textOf(grepped.value));
    assert.match(textOf(grepped.value), /^No line matches \/import\/ in \*\?/); // no file name ends in ':'
    // The same glob shape that does match answers as quickly.
    const matching = await within(5000, 'grep_code with a matching hostile glob', client.callTool({ name: 'grep_code', arguments: { pattern: 'import \\{ part3 \\}', glob: `${'*?'.repeat(12)}.ts` } }));
    assert.match(textOf(matching.value), /^src\/generatedgeneratedgeneratedgeneratedModule\d+\.ts:4: import \{ part3 \}/);
  });

  it('answers a glob over the length cap with an error result that says the limit', async () => {
    const result = await within(2000, 'grep_code with a long glob', client.callTool({ name: 'grep_code', arguments: { pattern: 'import', glob: '*?'.repeat(150) } }));
    assert.equal(result.value.isError, true);
    assert.match(textOf(result.value), /glob: expected a glob of at most 200 characters/);
  });

  it('answers a request over 10 MB with a JSON-RPC error for that request, logs it, and goes on serving', async () => {
    const huge = client.callTool({ name: 'search_wiki', arguments: { query: 'x'.repeat(OVER_LIMIT) } });
    await assert.rejects(within(10000, 'the over-long request', huge).then(({ value }) => value), (error: unknown) => {
      assert.ok(error instanceof McpError, String(error));
      assert.equal(error.code, -32600);
      assert.match(error.message, /the message is \d+ bytes long, and was not read; the limit of one JSON-RPC message is 10485760 bytes/);
      return true;
    });
    const after = await within(2000, 'search_wiki after it', client.callTool({ name: 'search_wiki', arguments: { query: 'pipeline' } }));
    assert.equal(after.value.isError, false);
    assert.match(transport.stderr, /repo-wiki mcp: dropped a message of \d+ bytes \(request id \d+\): the limit of one JSON-RPC message is 10485760 bytes/);
  });

  it('answers a raw line over 10 MB with no id with an error without one, and goes on serving', async () => {
    const from = transport.received.length;
    transport.writeRaw(`${'y'.repeat(OVER_LIMIT)}\n`);
    const error = await transport.next(from, (message) => 'error' in message, 10000);
    assert.equal(error.id, undefined);
    assert.equal((error.error as { code: number }).code, -32600);
    const after = await within(2000, 'search_wiki after it', client.callTool({ name: 'search_wiki', arguments: { query: 'router' } }));
    assert.equal(after.value.isError, false);
  });

  it('answers a line that is not JSON with a parse error (-32700), and JSON that is no JSON-RPC message with an invalid request (-32600)', async () => {
    let from = transport.received.length;
    transport.writeRaw('this is not JSON\n');
    const parseError = await transport.next(from, (message) => 'error' in message, 2000);
    assert.equal((parseError.error as { code: number }).code, -32700);
    assert.match((parseError.error as { message: string }).message, /^Parse error: a line that is not JSON/);
    from = transport.received.length;
    transport.writeRaw('{"jsonrpc":"2.0","id":"odd","params":{}}\r\n');
    const invalid = await transport.next(from, (message) => 'error' in message, 2000);
    assert.deepEqual([invalid.id, (invalid.error as { code: number }).code], ['odd', -32600]);
    const after = await within(2000, 'search_wiki after them', client.callTool({ name: 'search_wiki', arguments: { query: 'errors' } }));
    assert.equal(after.value.isError, false);
    assert.match(transport.stderr, /repo-wiki mcp: dropped a line that is not JSON/);
  });
});
