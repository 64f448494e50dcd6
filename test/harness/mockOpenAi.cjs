// A local mock of the OpenAI Chat Completions API and of Azure OpenAI's deployment routes on 127.0.0.1,
// answering as JSON or as SSE `chat.completion.chunk`s, so unit, integration and e2e tests can run the
// real `openai` SDK (OpenAI and AzureOpenAI clients) and OpenAI-compatible servers' quirks against it.
//
//   const mock = await startMockOpenAi({ validKey?, port?, defaultReply?, models? });
//   mock.url, mock.requests, mock.titleRequests, mock.setTitleReply(reply), mock.script(...replies), mock.settled(), mock.close()
//
// Routes:
//   POST /v1/chat/completions, POST /chat/completions      OpenAI (key: Authorization: Bearer)
//   POST /openai/deployments/{deployment}/chat/completions?api-version=…
//                                            Azure OpenAI (key: `api-key` header, or a bearer token);
//                                            without api-version: 404 {"error":{"code":"404","message":
//                                            "Resource not found"}}; a wrong key: 401 in Azure's shape
//                                            ({"error":{"code":"401","message":"Access denied…"}}); its
//                                            streams open with Azure's chunk of empty `choices` carrying
//                                            `prompt_filter_results`, as Azure's content filter does
//   GET /v1/models, GET /models                             { object: 'list', data: [{ id, … }] } of
//                                            `models` (default ['gpt-4.1'])
// With validKey set, any other key gets 401 {"error":{"message":"Incorrect API key provided: sk-a***wxyz…",
// "type":"invalid_request_error","param":null,"code":"invalid_api_key"}} (the key is masked, never echoed).
// Other paths: 404 "Invalid URL (METHOD /path)" in OpenAI's shape.
//
// Replies are queued by script() and consumed one per chat request that passes routing and auth; each is
// an object or (body) => object (or a promise of one, to hold the answer back):
//   { text?, chunks?, delayMs?, model?, usage?, noUsage?, onChunk? }  an answer; streamed (body.stream) in `chunks`
//                                            content deltas (a count, default 4, or the deltas themselves),
//                                            delayMs apart (tool-call fragments too); onChunk(i, delta) runs as each is written;
//                                            usage overrides fields of the reported usage ({ prompt_tokens,
//                                            completion_tokens, total_tokens, prompt_tokens_details:
//                                            { cached_tokens } }); finish_reason 'stop'
//   { status, message?, code?, type?, param?, retryAfter?, retryAfterMs? }
//                                            an HTTP error in OpenAI's shape {"error":{message,type,param,
//                                            code}}: 400 context_length_exceeded ("This model's maximum
//                                            context length is 4096 tokens. However, your messages resulted
//                                            in 9000 tokens."), 401 invalid_api_key, 403, 404 model_not_found,
//                                            429 rate_limit_exceeded, 500 server_error, 503 "The server is
//                                            overloaded or not ready yet."; retryAfter sets `retry-after`
//   { cutAfterChunks: n, text? }             stream n content deltas, then destroy the socket
//                                            (without stream: destroy it before answering)
//   { hang: true, text? }                    stream one delta (without stream: nothing), then wait until
//                                            the client disconnects
//   { html: true }                           200 text/html: a web page, as a misconfigured base URL gives
//   { toolCalls: [{ name, arguments, id? }], text?, quirk? }
//                                            asks for tool calls (finish_reason 'tool_calls'): the text deltas
//                                            first when there is text, then per call a first fragment
//                                            { index, id, type: 'function', function: { name, arguments: '' } }
//                                            and its arguments split in 3 fragments { index, function:
//                                            { arguments } }. `arguments` is a string (sent as is, e.g. broken
//                                            JSON) or an object (JSON-stringified). quirk (a string or an
//                                            array of them) imitates OpenAI-compatible servers:
//                                              'no-id'     no `id` on any fragment (llama.cpp)
//                                              'no-index'  no `index` on any fragment (LM Studio)
//                                              'whole'     each call in one fragment: index, id, type, name
//                                                          and the full arguments
//   { cutInToolCall: true, toolCalls, text? } stream up to the middle of the first call's arguments, then
//                                            destroy the socket
// Without `text`, a reply answers with the default text (an echo of the last user message); with
// toolCalls and no text, there is no text (content: null). With `stream_options: { include_usage: true }`
// every chunk carries `usage: null` and a last chunk has empty `choices` and the usage, as OpenAI does.
// Tool results the client sends back are `role: 'tool'` messages: `toolResults(request)` lists them.
// Each recorded request is { method, path, headers, body, apiKey, deployment?, apiVersion?, outcome }
// (body is null for a GET; deployment and apiVersion for Azure routes); outcome is set once the
// response is over: 'complete' | 'error' | 'cut' | 'client-closed'. settled() resolves when every
// response so far is over.
//
// Standalone: node test/harness/mockOpenAi.cjs [--port N] [--key K]   (prints the URL)
'use strict';
const { echo, isTitleRequest, serveMock, split, titleResponder } = require('./mockServer.cjs');

const ERRORS = {
  400: ['invalid_request_error', 'context_length_exceeded', "This model's maximum context length is 4096 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.", 'messages'],
  401: ['invalid_request_error', 'invalid_api_key', 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.'],
  403: ['invalid_request_error', 'unsupported_country_region_territory', 'Country, region, or territory not supported'],
  404: ['invalid_request_error', 'model_not_found', 'The model `gpt-mock` does not exist or you do not have access to it.'],
  429: ['tokens', 'rate_limit_exceeded', 'Rate limit reached for gpt-4.1 in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 900. Please try again in 2s.'],
  500: ['server_error', null, 'The server had an error while processing your request. Sorry about that!'],
  503: ['server_error', null, 'The server is overloaded or not ready yet.'],
};
const AZURE_NOT_FOUND = { error: { code: '404', message: 'Resource not found' } };
const AZURE_DENIED = { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.' } };
const HTML_PAGE = '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Welcome</title></head>\n<body>\n<h1>It works!</h1>\n<p>This is the default web page for this server.</p>\n</body>\n</html>\n';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startMockOpenAi({ validKey, port = 0, defaultReply = echo, models = ['gpt-4.1'] } = {}) {
  const queue = [];
  const requests = [];
  const titles = titleResponder();
  let nextId = 1;


  async function handle(req, res) {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url, 'http://mock');
    const path = url.pathname.replace(/\/+$/, '');
    const azure = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
    const chat = req.method === 'POST' && (azure || path === '/v1/chat/completions' || path === '/chat/completions');
    const listing = req.method === 'GET' && (path === '/v1/models' || path === '/models');
    if (!chat && !listing) {
      return sendError(res, { status: 404, type: 'invalid_request_error', code: null, param: null, message: `Invalid URL (${req.method} ${url.pathname})` });
    }
    let body = null;
    if (chat) {
      try {
        body = JSON.parse(raw);
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
      } catch {
        return sendError(res, { status: 400, type: 'invalid_request_error', code: null, param: null, message: 'We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)' });
      }
    }
    const apiKey = req.headers['api-key'] ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const record = { method: req.method, path: url.pathname, headers: req.headers, body, apiKey, outcome: undefined };
    if (azure) {
      record.deployment = decodeURIComponent(azure[1]);
      record.apiVersion = url.searchParams.get('api-version') ?? undefined;
    }
    (isTitleRequest(body) ? titles.requests : requests).push(record);
    let clientClosed = false;
    const gone = new Promise((resolve) => res.once('close', () => {
      clientClosed = !res.writableFinished;
      resolve();
    }));

    if (azure && !record.apiVersion) {
      sendJson(res, 404, AZURE_NOT_FOUND);
      record.outcome = 'error';
      return;
    }
    if (validKey !== undefined && apiKey !== validKey) {
      if (azure) sendJson(res, 401, AZURE_DENIED);
      else sendError(res, { status: 401, message: `Incorrect API key provided: ${mask(apiKey)}. You can find your API key at https://platform.openai.com/account/api-keys.` });
      record.outcome = 'error';
      return;
    }
    if (listing) {
      sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1744316542, owned_by: 'system' })) });
      record.outcome = 'complete';
      return;
    }

    const next = isTitleRequest(body) ? titles.reply(body) : queue.length ? queue.shift() : defaultReply;
    const reply = await (typeof next === 'function' ? next(body) : next);
    if (reply.status) {
      sendError(res, reply);
      record.outcome = 'error';
      return;
    }
    if (reply.html) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(HTML_PAGE);
      record.outcome = 'complete';
      return;
    }

    const serial = nextId++;
    const quirks = new Set([].concat(reply.quirk ?? []));
    const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
      id: call.id ?? `call_mock_${serial}_${i}`,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    }));
    const text = reply.text ?? (toolCalls.length ? '' : echo(body).text);
    const deltas = Array.isArray(reply.chunks) ? reply.chunks : text ? split(text, reply.chunks ?? 4) : [];
    const finishReason = toolCalls.length ? 'tool_calls' : 'stop';
    const model = reply.model ?? body.model ?? record.deployment ?? 'gpt-4.1';
    const id = `chatcmpl-mock${serial}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = makeUsage(Math.ceil(raw.length / 4), deltas.length + toolCalls.length, reply.usage);
    const headers = { 'x-request-id': `req_mock_${serial}` };
    const interrupted = reply.hang || reply.cutAfterChunks !== undefined || reply.cutInToolCall;

    if (!body.stream) {
      if (reply.hang) {
        await gone;
        record.outcome = 'client-closed';
      } else if (interrupted) {
        res.socket?.destroy();
        record.outcome = 'cut';
      } else {
        const message = { role: 'assistant', content: deltas.length ? deltas.join('') : null, refusal: null, annotations: [] };
        if (toolCalls.length) message.tool_calls = toolCalls.map((call) => omit({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }, quirks.has('no-id') ? ['id'] : []));
        sendJson(res, 200, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }], usage, system_fingerprint: 'fp_mock' }, headers);
        record.outcome = 'complete';
      }
      return;
    }

    // noUsage: a server (llama.cpp, some proxies) that ignores stream_options and reports no usage.
    const withUsage = Boolean(body.stream_options?.include_usage) && !reply.noUsage;
    const chunk = (delta, finish = null) => {
      const data = { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_mock', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
      if (withUsage) data.usage = null;
      write(res, data);
    };
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
    if (azure) write(res, { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: 'safe' }, self_harm: { filtered: false, severity: 'safe' }, sexual: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'safe' } } }] });
    chunk({ role: 'assistant', content: deltas.length || !toolCalls.length ? '' : null, refusal: null });
    const limit = reply.hang ? 1 : reply.cutAfterChunks ?? deltas.length;
    for (const [i, delta] of deltas.slice(0, limit).entries()) {
      if (i && reply.delayMs) await sleep(reply.delayMs);
      if (clientClosed) break;
      chunk({ content: delta });
      reply.onChunk?.(i, delta);
    }
    if (clientClosed) {
      record.outcome = 'client-closed';
      return;
    }
    if (reply.hang) {
      await gone;
      record.outcome = 'client-closed';
      return;
    }
    if (reply.cutAfterChunks !== undefined) {
      await sleep(30); // let the deltas reach the client before the socket goes
      res.socket?.destroy();
      record.outcome = 'cut';
      return;
    }
    const dropped = [...(quirks.has('no-id') ? ['id'] : []), ...(quirks.has('no-index') ? ['index'] : [])];
    for (const [index, call] of toolCalls.entries()) {
      if (quirks.has('whole') && !reply.cutInToolCall) {
        chunk({ tool_calls: [omit({ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }, dropped)] });
        continue;
      }
      chunk({ tool_calls: [omit({ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }, dropped)] });
      const fragments = split(call.arguments, 3);
      const upTo = reply.cutInToolCall ? Math.max(1, Math.floor(fragments.length / 2)) : fragments.length;
      for (const fragment of fragments.slice(0, upTo)) {
        if (reply.delayMs) await sleep(reply.delayMs);
        if (clientClosed) break;
        chunk({ tool_calls: [omit({ index, function: { arguments: fragment } }, dropped)] });
      }
      if (clientClosed) {
        record.outcome = 'client-closed';
        return;
      }
      if (reply.cutInToolCall) {
        await sleep(30);
        res.socket?.destroy();
        record.outcome = 'cut';
        return;
      }
    }
    chunk({}, finishReason);
    if (withUsage) write(res, { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_mock', choices: [], usage });
    res.end('data: [DONE]\n\n');
    record.outcome = 'complete';
  }

  return serveMock('mockOpenAi', port, handle, { requests, titles, queue });
}

function write(res, data) {
  res.write(`data: ${JSON.stringify(data)}\n\n`);
}

function sendJson(res, status, value, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

function makeUsage(promptTokens, completionTokens, override = {}) {
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: 0,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  const { prompt_tokens_details: promptDetails, ...rest } = override;
  Object.assign(usage, rest);
  if (promptDetails) usage.prompt_tokens_details = { ...usage.prompt_tokens_details, ...promptDetails };
  if (rest.total_tokens === undefined) usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  return usage;
}

function omit(object, keys) {
  const copy = { ...object };
  for (const key of keys) delete copy[key];
  return copy;
}


/** The `role: 'tool'` messages of a recorded request: { tool_call_id, content }. */
function toolResults(request) {
  return (request.body?.messages ?? []).filter((m) => m.role === 'tool').map(({ tool_call_id, content }) => ({ tool_call_id, content }));
}


/** As OpenAI shows a wrong key: its first and last characters only. */
function mask(key) {
  if (!key) return '<empty>';
  return key.length > 8 ? `${key.slice(0, 4)}${'*'.repeat(Math.min(key.length - 8, 20))}${key.slice(-4)}` : '*'.repeat(key.length);
}

function sendError(res, { status, message, code, type, param, retryAfter, retryAfterMs }) {
  const [defaultType, defaultCode, defaultMessage, defaultParam] = ERRORS[status] ?? ['server_error', null, `mock error ${status}`];
  const headers = { 'content-type': 'application/json', 'x-request-id': 'req_mock_error' };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  if (retryAfterMs !== undefined) headers['retry-after-ms'] = String(retryAfterMs);
  res.writeHead(status, headers);
  res.end(JSON.stringify({ error: { message: message ?? defaultMessage, type: type ?? defaultType, param: param === undefined ? defaultParam ?? null : param, code: code === undefined ? defaultCode : code } }));
}

module.exports = { startMockOpenAi, toolResults };

if (require.main === module) {
  const option = (name) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  startMockOpenAi({ port: Number(option('--port') ?? 0), validKey: option('--key') }).then((mock) => {
    console.log(`Mock OpenAI Chat Completions API at ${mock.url} (base URL ${mock.url}/v1; Azure endpoint ${mock.url})`);
  });
}
