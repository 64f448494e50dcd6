// What every local mock of a model API shares: an HTTP server on 127.0.0.1 whose requests are
// answered by `handle`, scripted replies queued by script(), settled() for the responses in flight,
// and close() that drops open connections (a hanging stream) too.
//
// The chat view asks for a conversation's title after its first answer (src/core/chat/title.ts).
// Every mock answers that request itself, never from the scripted queue, and records it in
// `titleRequests`, not `requests`: a test's script and `requests.at(-1)` stay about its answers.
// The title is the question itself unless a test sets another reply with setTitleReply(reply).
'use strict';
const http = require('node:http');

/** The opening of the title prompt: a request that carries it is the title request. */
const TITLE_PROMPT_OPENING = 'Give a 3-6 word title';
const isTitleRequest = (body) => JSON.stringify(body ?? null).includes(TITLE_PROMPT_OPENING);
/** Titles a conversation after its question, as the chat did before titles were proposed. */
function questionAsTitle(body) {
  // The question sits in the prompt's JSON as an escaped string: read it back as one.
  const escaped = /<question>\\n((?:[^<\\]|\\.)*?)\\n<\/question>/.exec(JSON.stringify(body ?? null))?.[1];
  return { text: escaped === undefined ? 'Untitled' : JSON.parse(`"${escaped}"`) };
}

/** The title requests a mock received, and the reply it gives them (an object or (body) => object). */
function titleResponder() {
  let reply = questionAsTitle;
  return {
    requests: [],
    reply: (body) => (typeof reply === 'function' ? reply(body) : reply),
    set: (next) => {
      reply = next ?? questionAsTitle;
    },
  };
}

async function serveMock(label, port, handle, { requests, titles = titleResponder(), queue }) {
  const inFlight = new Set();
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    const done = handle(req, res).catch((error) => {
      console.error(`[${label}]`, error);
      res.destroy();
    });
    inFlight.add(done);
    done.finally(() => inFlight.delete(done));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    titleRequests: titles.requests,
    setTitleReply: titles.set,
    script: (...replies) => void queue.push(...replies),
    settled: async () => {
      while (inFlight.size) await Promise.all(inFlight);
    },
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** `text` in `count` deltas of about the same size (one empty delta for empty text). */
function split(text, count) {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, count)));
  const parts = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts.length ? parts : [''];
}

/** The default reply: an answer naming the last user message's question. */
function echo(body) {
  const last = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user');
  const content = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  return { text: `Mock answer to: ${content.split('Question: ').pop()}` };
}

module.exports = { serveMock, isTitleRequest, titleResponder, split, echo };
