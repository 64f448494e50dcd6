// A local mock of the Anthropic Messages API (POST /v1/messages, JSON and SSE streaming) on
// 127.0.0.1, used through the real SDK by unit, integration and e2e tests.
//
//   const mock = await startMockAnthropic({ validKey });   // mock.url, mock.requests ({ headers, body, apiKey }), mock.close()
//   mock.script(reply, ...)   queue replies, one per request; each is an object or (body) => object:
//     { text, chunks?, delayMs?, model?, inputTokens?, onChunk? }  an answer, streamed in `chunks`
//                                                     deltas (a count, or the deltas themselves);
//                                                     onChunk(i, text) runs as each one is written
//     { status, retryAfter?, message? }                  an API error (401, 429, 529, 400, 500…)
//     { text, cutAfterChunks }                           stream some deltas, then drop the socket
//     { text, hang: true }                               stream one delta, then wait for the client to go
//   With the queue empty, the answer echoes the last user message.
//   Run standalone: node test/harness/mockAnthropic.cjs [--port N]
const http = require('node:http');

const ERROR_TYPES = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error' };

function sse(res, type, data) {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function split(text, chunks) {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, chunks)));
  const parts = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts.length ? parts : [''];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startMockAnthropic({ validKey, port = 0, defaultReply } = {}) {
  const queue = [];
  const requests = [];
  const sockets = new Set();

  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (req.method !== 'POST' || !req.url.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `No route ${req.method} ${req.url}` } }));
      return;
    }
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      return error(res, { status: 400, message: 'Request body is not JSON.' });
    }
    // The SDK sends the key as x-api-key or as a bearer token, depending on its version.
    const apiKey = req.headers['x-api-key'] ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    requests.push({ headers: req.headers, body, apiKey });
    if (validKey && apiKey !== validKey) return error(res, { status: 401, message: 'invalid x-api-key' });
    const next = queue.length ? queue.shift() : (defaultReply ?? echo);
    const reply = typeof next === 'function' ? next(body) : next;
    if (reply.status) return error(res, reply);
    const model = reply.model ?? body.model;
    const inputTokens = reply.inputTokens ?? Math.ceil(raw.length / 4);
    const parts = Array.isArray(reply.chunks) ? reply.chunks : split(reply.text ?? '', reply.chunks ?? 4);
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'msg_mock', type: 'message', role: 'assistant', model, content: [{ type: 'text', text: reply.text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: parts.length } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    sse(res, 'message_start', { message: { id: 'msg_mock', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 1 } } });
    sse(res, 'content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    const limit = reply.hang ? 1 : reply.cutAfterChunks ?? parts.length;
    for (const [i, part] of parts.slice(0, limit).entries()) {
      if (i && reply.delayMs) await sleep(reply.delayMs);
      sse(res, 'content_block_delta', { index: 0, delta: { type: 'text_delta', text: part } });
      reply.onChunk?.(i, part);
    }
    if (reply.hang) {
      await new Promise((resolve) => res.once('close', resolve));
      return;
    }
    if (reply.cutAfterChunks !== undefined) {
      await sleep(50); // let the deltas reach the client first
      res.socket?.destroy();
      return;
    }
    sse(res, 'content_block_stop', { index: 0 });
    sse(res, 'message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: parts.length } });
    sse(res, 'message_stop', {});
    res.end();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    script: (...replies) => queue.push(...replies),
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

function echo(body) {
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  const content = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  return { text: `Mock answer to: ${content.split('Question: ').pop()}` };
}

function error(res, { status, retryAfter, message }) {
  const headers = { 'content-type': 'application/json', 'request-id': 'req_mock' };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  const text = message ?? (status === 400 ? 'prompt is too long: 250000 tokens > 200000 maximum' : `mock ${status}`);
  res.writeHead(status, headers);
  res.end(JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message: text } }));
}

module.exports = { startMockAnthropic };

if (require.main === module) {
  const at = process.argv.indexOf('--port');
  startMockAnthropic({ port: at > 0 ? Number(process.argv[at + 1]) : 0 }).then((mock) => console.log(`Mock Anthropic Messages API at ${mock.url}`));
}
