// A local mock of the Anthropic Messages API (POST /v1/messages on 127.0.0.1), answering as JSON or
// as SSE in the real event order, so unit, integration and e2e tests can run the real SDK against it.
//
//   const mock = await startMockAnthropic({ validKey?, port?, defaultReply? });
//   mock.url, mock.requests, mock.titleRequests, mock.setTitleReply(reply), mock.script(...replies), mock.settled(), mock.close()
//
// Replies are queued by script() and consumed one per request; each is an object or (body) => object
// (or a promise of one, to hold the answer back, e.g. until a second request has arrived):
//   { text?, chunks?, delayMs?, model?, usage?, onChunk? }  an answer streamed in `chunks` deltas (a count,
//                                            default 4, or the deltas themselves); onChunk(i, delta) runs
//                                            as each is written; usage overrides the reported token counts
//   { status, retryAfter?, retryAfterMs?, errorType?, message? }
//                                            an HTTP error in the API's JSON shape (401, 429, 529, 400…);
//                                            a bare 400 says "prompt is too long"
//   { cutAfterChunks: n, text? }             stream n deltas, then destroy the socket
//   { hang: true, text? }                    stream one delta, then wait until the client disconnects
//   { streamError: 'overloaded_error', afterChunks? }
//                                            an `event: error` inside a 200 stream, as the API sends
//                                            when it is overloaded mid-answer
//   { toolUses: [{ name, input, id?, rawInput? }], text? }
//                                            asks for tool calls (stop_reason tool_use): the text block
//                                            first when there is text, then each tool_use block with its
//                                            input streamed as input_json_delta fragments (rawInput:
//                                            those fragments as given, e.g. broken JSON)
// Without `text`, a reply answers with the default text (an echo of the last user message); with
// toolUses and no text, there is no text block. Tool results the client sends back are in the
// recorded request bodies (`toolResults(request)` lists them).
// Each recorded request is { headers, body, apiKey, outcome }: apiKey comes from x-api-key or a bearer
// token (this SDK version sends the key as `Authorization: Bearer`); outcome is set once the response
// is over: 'complete' | 'error' | 'cut' | 'client-closed'. settled() resolves when every response
// so far is over, e.g. to assert that a cancelled request really closed its connection.
//
// Standalone: node test/harness/mockAnthropic.cjs [--port N] [--key K]   (prints the URL)
'use strict';
const { echo, isTitleRequest, serveMock, split, titleResponder } = require('./mockServer.cjs');

const ERRORS = {
  400: ['invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum'],
  401: ['authentication_error', 'invalid x-api-key'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'Not found'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit.'],
  500: ['api_error', 'Internal server error'],
  529: ['overloaded_error', 'Overloaded'],
};
const STREAM_ERROR_MESSAGES = { overloaded_error: 'Overloaded', rate_limit_error: ERRORS[429][1], api_error: ERRORS[500][1] };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startMockAnthropic({ validKey, port = 0, defaultReply = echo } = {}) {
  const queue = [];
  const requests = [];
  const titles = titleResponder();
  let nextId = 1;


  async function handle(req, res) {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (req.method !== 'POST' || new URL(req.url, 'http://mock').pathname !== '/v1/messages') {
      return sendError(res, { status: 404, message: `No route ${req.method} ${req.url}` });
    }
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      return sendError(res, { status: 400, errorType: 'invalid_request_error', message: 'The request body is not valid JSON.' });
    }
    const apiKey = req.headers['x-api-key'] ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const record = { headers: req.headers, body, apiKey, outcome: undefined };
    (isTitleRequest(body) ? titles.requests : requests).push(record);
    let clientClosed = false;
    const gone = new Promise((resolve) => res.once('close', () => {
      clientClosed = !res.writableFinished;
      resolve();
    }));

    if (validKey !== undefined && apiKey !== validKey) {
      sendError(res, { status: 401 });
      record.outcome = 'error';
      return;
    }
    const next = isTitleRequest(body) ? titles.reply(body) : queue.length ? queue.shift() : defaultReply;
    const reply = await (typeof next === 'function' ? next(body) : next);
    if (reply.status) {
      sendError(res, reply);
      record.outcome = 'error';
      return;
    }

    const toolUses = (reply.toolUses ?? []).map((use, i) => ({ id: use.id ?? `toolu_mock_${nextId}_${i}`, name: use.name, input: use.input ?? {}, rawInput: use.rawInput }));
    const text = reply.text ?? (toolUses.length ? '' : echo(body).text);
    const deltas = Array.isArray(reply.chunks) ? reply.chunks : text ? split(text, reply.chunks ?? 4) : [];
    const stopReason = toolUses.length ? 'tool_use' : 'end_turn';
    const model = reply.model ?? body.model;
    const usage = { input_tokens: Math.ceil(raw.length / 4), cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: deltas.length, ...reply.usage };
    const id = `msg_mock_${nextId++}`;
    const interrupted = reply.hang || reply.cutAfterChunks !== undefined || reply.streamError;

    if (!body.stream) {
      if (!interrupted) {
        const content = [...(deltas.length ? [{ type: 'text', text: deltas.join('') }] : []), ...toolUses.map(({ id: useId, name, input }) => ({ type: 'tool_use', id: useId, name, input }))];
        const message = { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage };
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${id}` });
        res.end(JSON.stringify(message));
        record.outcome = 'complete';
      } else if (reply.streamError) {
        sendError(res, { status: statusOf(reply.streamError), errorType: reply.streamError });
        record.outcome = 'error';
      } else if (reply.hang) {
        await gone;
        record.outcome = 'client-closed';
      } else {
        res.socket?.destroy();
        record.outcome = 'cut';
      }
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': `req_${id}` });
    event(res, 'message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
    const textBlock = deltas.length > 0 || !toolUses.length;
    if (textBlock) event(res, 'content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    event(res, 'ping', {});
    const limit = reply.hang ? 1 : reply.cutAfterChunks ?? (reply.streamError ? reply.afterChunks ?? 0 : deltas.length);
    for (const [i, delta] of deltas.slice(0, limit).entries()) {
      if (i && reply.delayMs) await sleep(reply.delayMs);
      if (clientClosed) break;
      event(res, 'content_block_delta', { index: 0, delta: { type: 'text_delta', text: delta } });
      reply.onChunk?.(i, delta);
    }
    if (clientClosed) {
      record.outcome = 'client-closed';
    } else if (reply.hang) {
      await gone;
      record.outcome = 'client-closed';
    } else if (reply.cutAfterChunks !== undefined) {
      await sleep(30); // let the deltas reach the client before the socket goes
      res.socket?.destroy();
      record.outcome = 'cut';
    } else if (reply.streamError) {
      event(res, 'error', { error: { type: reply.streamError, message: STREAM_ERROR_MESSAGES[reply.streamError] ?? reply.streamError } });
      res.end();
      record.outcome = 'error';
    } else {
      if (textBlock) event(res, 'content_block_stop', { index: 0 });
      for (const [i, use] of toolUses.entries()) {
        const index = i + (textBlock ? 1 : 0);
        event(res, 'content_block_start', { index, content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} } });
        for (const fragment of split(use.rawInput ?? JSON.stringify(use.input), 3)) event(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: fragment } });
        event(res, 'content_block_stop', { index });
      }
      event(res, 'message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
      event(res, 'message_stop', {});
      res.end();
      record.outcome = 'complete';
    }
  }

  return serveMock('mockAnthropic', port, handle, { requests, titles, queue });
}

function event(res, type, data) {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}


/** The tool_result blocks of a recorded request's last message: { tool_use_id, content, is_error }. */
function toolResults(request) {
  const last = request.body.messages?.at(-1);
  return Array.isArray(last?.content) ? last.content.filter((block) => block.type === 'tool_result') : [];
}


function statusOf(errorType) {
  return Number(Object.keys(ERRORS).find((status) => ERRORS[status][0] === errorType) ?? 500);
}

function sendError(res, { status, retryAfter, retryAfterMs, errorType, message }) {
  const [defaultType, defaultMessage] = ERRORS[status] ?? ['api_error', `mock error ${status}`];
  const headers = { 'content-type': 'application/json', 'request-id': 'req_mock_error' };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  if (retryAfterMs !== undefined) headers['retry-after-ms'] = String(retryAfterMs);
  res.writeHead(status, headers);
  res.end(JSON.stringify({ type: 'error', error: { type: errorType ?? defaultType, message: message ?? defaultMessage } }));
}

module.exports = { startMockAnthropic, toolResults };

if (require.main === module) {
  const option = (name) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  startMockAnthropic({ port: Number(option('--port') ?? 0), validKey: option('--key') }).then((mock) => {
    console.log(`Mock Anthropic Messages API at ${mock.url}`);
  });
}
