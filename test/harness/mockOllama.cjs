// A local mock of Ollama's native API on 127.0.0.1 (/api/tags, /api/show, /api/chat as NDJSON or JSON),
// so unit, integration and e2e tests can run the real `ollama` SDK (or plain fetch) against it.
//
//   const mock = await startMockOllama({ port?, models?, defaultReply? });
//   mock.url, mock.requests, mock.titleRequests, mock.setTitleReply(reply), mock.script(...replies), mock.settled(), mock.close()
//
// models: [{ name, contextLength?, capabilities?, family?, architecture?, parameterSize?, quantization? }],
// default [{ name: 'qwen2.5-coder:7b', contextLength: 32768, capabilities: ['completion', 'tools'] },
//          { name: 'llama3.2:1b', contextLength: 131072, capabilities: ['completion'] }].
// A name without a tag means ':latest', in the configuration and in requests, as in Ollama.
// Routes:
//   GET  /api/tags      { models: [{ name, model, modified_at, size, digest, details: { parent_model, format,
//                       family, families, parameter_size, quantization_level } }] }
//   POST /api/show      body { model } (older clients send { name }) → { license, modelfile, parameters,
//                       template, details, model_info: { 'general.architecture': 'qwen2',
//                       'qwen2.context_length': 32768, … }, capabilities, modified_at };
//                       an unknown model: 404 {"error":"model 'x' not found"}
//   POST /api/chat      an unknown model: 404 {"error":"model \"x\" not found, try pulling it first"};
//                       `tools` sent to a model without the 'tools' capability: 400 {"error":
//                       "registry.ollama.ai/library/llama3.2:1b does not support tools"}; otherwise the
//                       next scripted reply, streamed (`stream` defaults to true, as in the HTTP API; the SDK
//                       sends false unless told) as application/x-ndjson lines { model, created_at, message:
//                       { role: 'assistant', content }, done: false }, then { model, created_at, message:
//                       { role: 'assistant', content: '' }, done: true, done_reason: 'stop', total_duration,
//                       load_duration, prompt_eval_count, prompt_eval_duration, eval_count, eval_duration };
//                       with stream: false, one JSON object with the whole message and the counts
//   GET  /api/version   { version }; GET / "Ollama is running"; anything else: 404 "404 page not found"
//
// Replies are queued by script() and consumed one per /api/chat request that names a known model (and
// passes the tools check); each is an object or (body) => object (or a promise of one):
//   { text?, chunks?, delayMs?, promptEvalCount?, evalCount?, onChunk? }
//                                            an answer in `chunks` message lines (a count, default 4, or
//                                            the contents themselves), delayMs apart
//   { status, error? }                       an HTTP error {"error": "…"}: 400 "invalid request", 404
//                                            "model not found", 500 "llama runner process has terminated:
//                                            exit status 2", 503 "server busy"
//   { cutAfterChunks: n, text? }             stream n lines, then destroy the socket (stream: false:
//                                            destroy it before answering)
//   { hang: true, text? }                    stream one line (stream: false: nothing), then wait until the
//                                            client disconnects
//   { toolCalls: [{ name, arguments }], text? }
//                                            the text lines, then one line whose message has
//                                            tool_calls: [{ function: { name, arguments: {…} } }] (whole, no
//                                            id, arguments an object; a string is JSON-parsed), then the done
//                                            line (done_reason 'stop', as Ollama says for tool calls too)
//   { streamError: 'msg', afterChunks? }     after `afterChunks` lines (default 1), an NDJSON line
//                                            {"error":"msg"} and the end of the 200 stream, as Ollama does
//                                            when the runner fails mid-answer (stream: false: 500 {"error"})
// Without `text`, a reply answers with the default text (an echo of the last user message); with
// toolCalls and no text, there are no text lines.
// Each recorded request is { method, path, headers, body, numCtx, outcome }: numCtx is body.options.num_ctx
// (undefined when not sent); outcome is set once the response is over: 'complete' | 'error' | 'cut' |
// 'client-closed'. settled() resolves when every response so far is over. `toolResults(request)` lists
// the `role: 'tool'` messages ({ tool_name, content }) of a recorded request.
//
// Standalone: node test/harness/mockOllama.cjs [--port N]   (prints the URL)
'use strict';
const { echo, isTitleRequest, serveMock, split, titleResponder } = require('./mockServer.cjs');
const crypto = require('node:crypto');

const ERRORS = {
  400: 'invalid request',
  404: 'model not found',
  500: 'llama runner process has terminated: exit status 2',
  503: 'server busy',
};
const DEFAULT_MODELS = [
  { name: 'qwen2.5-coder:7b', contextLength: 32768, capabilities: ['completion', 'tools'] },
  { name: 'llama3.2:1b', contextLength: 131072, capabilities: ['completion'] },
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const tagged = (name) => (String(name).includes(':') ? String(name) : `${name}:latest`);

async function startMockOllama({ port = 0, models = DEFAULT_MODELS, defaultReply = echo } = {}) {
  const catalog = models.map(describe);
  const find = (name) => (name ? catalog.find((m) => m.name === tagged(name)) : undefined);
  const queue = [];
  const requests = [];
  const titles = titleResponder();


  async function handle(req, res) {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const path = new URL(req.url, 'http://mock').pathname;
    const route = `${req.method} ${path}`;
    if (route === 'GET /' || route === 'HEAD /') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      return res.end('Ollama is running');
    }
    if (route === 'GET /api/version') return sendJson(res, 200, { version: '0.12.6' });
    if (!['GET /api/tags', 'POST /api/show', 'POST /api/chat'].includes(route)) {
      const known = ['/api/tags', '/api/show', '/api/chat'].includes(path);
      res.writeHead(known ? 405 : 404, { 'content-type': 'text/plain' });
      return res.end(known ? '405 method not allowed' : '404 page not found');
    }
    let body = null;
    if (req.method === 'POST') {
      try {
        body = JSON.parse(raw || '{}');
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('json: cannot unmarshal into Go value of type api.Request');
      } catch (error) {
        return sendJson(res, 400, { error: String(error.message) });
      }
    }
    const record = { method: req.method, path, headers: req.headers, body, numCtx: body?.options?.num_ctx, outcome: undefined };
    (isTitleRequest(body) ? titles.requests : requests).push(record);
    let clientClosed = false;
    const gone = new Promise((resolve) => res.once('close', () => {
      clientClosed = !res.writableFinished;
      resolve();
    }));
    const fail = (status, error) => {
      sendJson(res, status, { error });
      record.outcome = 'error';
    };

    if (path === '/api/tags') {
      sendJson(res, 200, { models: catalog.map(({ name, size, digest, details, modifiedAt }) => ({ name, model: name, modified_at: modifiedAt, size, digest, details })) });
      record.outcome = 'complete';
      return;
    }
    if (path === '/api/show') {
      const name = body.model ?? body.name;
      if (!name) return fail(400, 'model is required');
      const model = find(name);
      if (!model) return fail(404, `model '${name}' not found`);
      sendJson(res, 200, {
        license: 'Apache License\nVersion 2.0, January 2004',
        modelfile: `# Modelfile generated by "ollama show"\n# To build a new Modelfile based on this, replace FROM with:\n# FROM ${model.name}\n\nFROM /root/.ollama/models/blobs/sha256-${model.digest}\nTEMPLATE """{{ .Prompt }}"""\n`,
        parameters: 'stop                           "<|im_start|>"\nstop                           "<|im_end|>"',
        template: '{{- if .Messages }}{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}{{ end }}<|im_start|>assistant\n',
        details: model.details,
        model_info: {
          'general.architecture': model.architecture,
          'general.file_type': 15,
          'general.parameter_count': model.parameterCount,
          'general.quantization_version': 2,
          [`${model.architecture}.attention.head_count`]: 28,
          [`${model.architecture}.block_count`]: 28,
          [`${model.architecture}.context_length`]: model.contextLength,
          [`${model.architecture}.embedding_length`]: 3584,
        },
        capabilities: model.capabilities,
        modified_at: model.modifiedAt,
      });
      record.outcome = 'complete';
      return;
    }

    // POST /api/chat
    const model = find(body.model);
    if (!model) return fail(404, `model "${body.model ?? ''}" not found, try pulling it first`);
    if (Array.isArray(body.tools) && body.tools.length && !model.capabilities.includes('tools')) {
      return fail(400, `registry.ollama.ai/library/${model.name} does not support tools`);
    }
    const next = isTitleRequest(body) ? titles.reply(body) : queue.length ? queue.shift() : defaultReply;
    const reply = await (typeof next === 'function' ? next(body) : next);
    if (reply.status) return fail(reply.status, reply.error ?? ERRORS[reply.status] ?? `mock error ${reply.status}`);

    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      function: { name: call.name, arguments: typeof call.arguments === 'string' ? JSON.parse(call.arguments) : call.arguments ?? {} },
    }));
    const text = reply.text ?? (toolCalls.length ? '' : echo(body).text);
    const contents = Array.isArray(reply.chunks) ? reply.chunks : text ? split(text, reply.chunks ?? 4) : [];
    const name = body.model;
    const stats = {
      total_duration: 912_345_678,
      load_duration: 12_345_678,
      prompt_eval_count: reply.promptEvalCount ?? Math.ceil(raw.length / 4),
      prompt_eval_duration: 123_456_789,
      eval_count: reply.evalCount ?? contents.length + toolCalls.length,
      eval_duration: 654_321_000,
    };
    const line = (message, done = false) => ({ model: name, created_at: new Date().toISOString(), message: { role: 'assistant', ...message }, done });

    if (body.stream === false) {
      if (reply.hang) {
        await gone;
        record.outcome = 'client-closed';
      } else if (reply.cutAfterChunks !== undefined) {
        res.socket?.destroy();
        record.outcome = 'cut';
      } else if (reply.streamError) {
        fail(500, reply.streamError);
      } else {
        const message = { content: contents.join('') };
        if (toolCalls.length) message.tool_calls = toolCalls;
        sendJson(res, 200, { ...line(message, true), done_reason: 'stop', ...stats });
        record.outcome = 'complete';
      }
      return;
    }

    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const limit = reply.hang ? 1 : reply.cutAfterChunks ?? (reply.streamError ? reply.afterChunks ?? 1 : contents.length);
    for (const [i, content] of contents.slice(0, limit).entries()) {
      if (i && reply.delayMs) await sleep(reply.delayMs);
      if (clientClosed) break;
      res.write(`${JSON.stringify(line({ content }))}\n`);
      reply.onChunk?.(i, content);
    }
    if (clientClosed) {
      record.outcome = 'client-closed';
    } else if (reply.hang) {
      await gone;
      record.outcome = 'client-closed';
    } else if (reply.cutAfterChunks !== undefined) {
      await sleep(30); // let the lines reach the client before the socket goes
      res.socket?.destroy();
      record.outcome = 'cut';
    } else if (reply.streamError) {
      res.end(`${JSON.stringify({ error: reply.streamError })}\n`);
      record.outcome = 'error';
    } else {
      if (toolCalls.length) res.write(`${JSON.stringify(line({ content: '', tool_calls: toolCalls }))}\n`);
      res.end(`${JSON.stringify({ ...line({ content: '' }, true), done_reason: 'stop', ...stats })}\n`);
      record.outcome = 'complete';
    }
  }

  return serveMock('mockOllama', port, handle, { requests, titles, queue });
}

/** A configured model with everything the routes report about it. */
function describe(config) {
  const name = tagged(config.name);
  const [base, tag] = name.split(':');
  const architecture = config.architecture ?? (/^qwen2/.test(base) ? 'qwen2' : /^llama/.test(base) ? 'llama' : /^[a-z]+/.exec(base)?.[0] ?? 'llama');
  const billions = Number(/^(\d+(?:\.\d+)?)b$/i.exec(tag)?.[1] ?? 7);
  const parameterSize = config.parameterSize ?? `${billions}B`;
  const family = config.family ?? architecture;
  return {
    name,
    architecture,
    contextLength: config.contextLength ?? 4096,
    capabilities: config.capabilities ?? ['completion'],
    parameterCount: Math.round(billions * 1e9),
    size: Math.round(billions * 0.6e9),
    digest: crypto.createHash('sha256').update(name).digest('hex'),
    modifiedAt: '2026-10-01T12:00:00.000000000Z',
    details: { parent_model: '', format: 'gguf', family, families: [family], parameter_size: parameterSize, quantization_level: config.quantization ?? 'Q4_K_M' },
  };
}

function sendJson(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(value));
}


/** The `role: 'tool'` messages of a recorded request: { tool_name, content }. */
function toolResults(request) {
  return (request.body?.messages ?? []).filter((m) => m.role === 'tool').map(({ tool_name, content }) => ({ tool_name, content }));
}


module.exports = { startMockOllama, toolResults };

if (require.main === module) {
  const option = (name) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  startMockOllama({ port: Number(option('--port') ?? 0) }).then((mock) => {
    console.log(`Mock Ollama API at ${mock.url}`);
  });
}
