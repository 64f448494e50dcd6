/**
 * Turns of the event loop inside long synchronous work. The CLI, the MCP server and the drift
 * worker read files with blocking calls, so a whole-wiki drift check or a find_symbol over 200
 * files would otherwise parse file after file without the event loop ever running: no other
 * request is read, no deadline's timer fires, no cancellation arrives until it is done.
 *
 * Use it right before each piece of synchronous work, with nothing awaited in between:
 *   while (turnDue()) await nextTurn();
 * The check and the work then run in the same synchronous stretch, so work resumed by the same
 * turn is checked again, one piece at a time, and a stretch lasts about SLICE_MS at most.
 */
const SLICE_MS = 10;

let lastTurn = performance.now();
let turn: Promise<void> | undefined;

/** Whether this thread has worked SLICE_MS since it last let the event loop run (through nextTurn). */
export function turnDue(): boolean {
  return performance.now() - lastTurn >= SLICE_MS;
}

/** Resolves after a turn of the event loop (timers and I/O run first); everyone waiting shares it. */
export function nextTurn(): Promise<void> {
  return (turn ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      lastTurn = performance.now();
      turn = undefined;
      resolve();
    }),
  ));
}
