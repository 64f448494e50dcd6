import * as assert from 'node:assert/strict';
import { nextTurn, turnDue } from '../../../src/core/eventLoopTurns';

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('event loop turns in synchronous work', () => {
  it('let timers run every few milliseconds while concurrent chains of synchronous pieces run for 600 ms', async () => {
    let last = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 1);
    try {
      // As the drift engine's pages: chains started together, each piece checked right before it runs.
      const chain = async () => {
        for (let piece = 0; piece < 20; piece++) {
          while (turnDue()) await nextTurn();
          busy(3);
        }
      };
      last = performance.now();
      await Promise.all(Array.from({ length: 10 }, chain));
    } finally {
      clearInterval(ticker);
    }
    assert.ok(longestGap < 150, `the event loop waited ${longestGap.toFixed(0)} ms for a turn`); // a ceiling, not a typical time
  });
});
