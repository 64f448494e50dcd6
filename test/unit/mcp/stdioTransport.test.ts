import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { GuardedStdioServerTransport, guardStdioTransport } from '../../../src/mcp/stdioTransport';

/** A started transport over in-memory streams, with what it handed on, answered and logged. */
async function harness(transport: (stdin: PassThrough, stdout: PassThrough) => StdioServerTransport) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const t = transport(stdin, stdout);
  const got: JSONRPCMessage[] = [];
  const logged: string[] = [];
  let closed = false;
  t.onmessage = (message) => got.push(message);
  t.onerror = (error) => logged.push(error.message);
  t.onclose = () => (closed = true);
  await t.start();
  let out = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const answers = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id?: unknown; error: { code: number; message: string } });
  };
  return { stdin, t, got, logged, answers, closed: () => closed };
}

const ping = (id: number | string) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;

describe('the guarded stdio transport of repo-wiki mcp', () => {
  it('hands on messages split anywhere across chunks, CRLF or LF, and skips blank lines', async () => {
    const { stdin, got, logged, answers } = await harness((i, o) => new GuardedStdioServerTransport(i, o));
    const text = `${ping(1)}\n${ping(2).replace('\n', '\r\n')}${ping('three')}`;
    for (let k = 0; k < text.length; k += 7) stdin.write(Buffer.from(text.slice(k, k + 7)));
    await answers();
    assert.deepEqual(got.map((message) => (message as { id: unknown }).id), [1, 2, 'three']);
    assert.deepEqual([logged, await answers()], [[], []]);
  });

  it('answers a line over the limit with Invalid Request, its id found at either end, and reads the next line', async () => {
    const { stdin, got, logged, answers, closed } = await harness((i, o) => new GuardedStdioServerTransport(i, o, 1000));
    const big = 'x'.repeat(3000);
    stdin.write(`${JSON.stringify({ method: 'tools/call', params: { q: big }, jsonrpc: '2.0', id: 7 })}\n`); // the SDK client's key order: id last
    stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 'first', method: 'm', params: { q: big } }).slice(0, 1500)); // id first, and in pieces
    stdin.write(`${big}"}}\n`);
    stdin.write(`${big}\n`);
    stdin.write(ping(8));
    const [a, b, c] = await answers();
    assert.deepEqual([a.id, a.error.code], [7, -32600]);
    assert.match(a.error.message, /the message is \d+ bytes long, and was not read; the limit of one JSON-RPC message is 1000 bytes/);
    assert.deepEqual([b.id, b.error.code], ['first', -32600]);
    assert.deepEqual([c.id, c.error.code], [undefined, -32600]);
    assert.deepEqual(got, [{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
    assert.equal(logged.length, 3);
    assert.match(logged[0], /^dropped a message of \d+ bytes \(request id 7\)/);
    assert.equal(closed(), false);
  });

  it('answers a line that is not JSON with a Parse error, JSON that is no message with Invalid Request, and drops a malformed response', async () => {
    const { stdin, got, logged, answers } = await harness((i, o) => new GuardedStdioServerTransport(i, o));
    stdin.write('not json\n[1,2]\n{"jsonrpc":"2.0","id":3}\n{"jsonrpc":"2.0","id":4,"result":5}\n42\n');
    stdin.write(ping(9));
    const answered = await answers();
    assert.deepEqual(answered.map((answer) => [answer.id, answer.error.code]), [[undefined, -32700], [undefined, -32600], [3, -32600], [undefined, -32600]]);
    assert.match(answered[1].error.message, /a batch/);
    assert.deepEqual(got, [{ jsonrpc: '2.0', id: 9, method: 'ping' }]);
    assert.equal(logged.length, 5);
  });

  it('guards a plain StdioServerTransport built elsewhere (the CLI builds one), once', async () => {
    const { stdin, got, answers } = await harness((i, o) => {
      const plain = new StdioServerTransport(i, o);
      guardStdioTransport(plain, 100);
      guardStdioTransport(plain); // a second guard changes nothing: the limit stays 100
      return plain;
    });
    stdin.write(`{"jsonrpc":"2.0","method":"m","params":{"q":"${'x'.repeat(200)}"},"id":1}\nnot json\n`);
    stdin.write(ping(2));
    const answered = await answers();
    assert.deepEqual(answered.map((answer) => answer.error.code), [-32600, -32700]);
    assert.deepEqual(got, [{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });
});
