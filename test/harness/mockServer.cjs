// What every local mock of a model API shares: an HTTP server on 127.0.0.1 whose requests are
// answered by `handle`, scripted replies queued by script(), settled() for the responses in flight,
// and close() that drops open connections (a hanging stream) too.
'use strict';
const http = require('node:http');

async function serveMock(label, port, handle, { requests, queue }) {
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

module.exports = { serveMock };
