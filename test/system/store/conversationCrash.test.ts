import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openConversationStore } from '../../../src/adapters/store/sqlJsConversationStore';

const CHILD = path.join(__dirname, 'conversationCrashChild.js');
const TRIALS = 25;

interface Acknowledged {
  conversations: Set<string>;
  /** question → where the child was told it was stored */
  turns: Map<string, { conversationId: string; index: number }>;
}

/** Starts a writer and collects its acknowledgements; only whole lines count (a kill can cut one short). */
function startWriter(dir: string, name: string, acked: Acknowledged): { child: ChildProcess; firstAck: Promise<void>; exited: Promise<void> } {
  const child = spawn(process.execPath, [CHILD, dir, name], { stdio: ['ignore', 'pipe', 'pipe'] });
  let pending = '';
  let stderr = '';
  let onFirst: () => void;
  const firstAck = new Promise<void>((resolve) => (onFirst = resolve));
  child.stdout!.on('data', (data: Buffer) => {
    pending += data.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const [kind, conversationId, index, question] = line.split(' ');
      if (kind === 'created') acked.conversations.add(conversationId);
      if (kind === 'turn') acked.turns.set(question, { conversationId, index: Number(index) });
      onFirst();
    }
  });
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
  const exited = new Promise<void>((resolve, reject) => child.on('exit', (code, signal) => {
    if (signal === 'SIGKILL') resolve();
    else reject(new Error(`writer ${name} exited with ${code ?? signal}: ${stderr}`));
  }));
  return { child, firstAck, exited };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('conversation store under SIGKILL', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-crash-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`keeps every acknowledged turn, in the catalog and its shards, and opens cleanly after ${TRIALS} rounds of two writers killed at random moments`, async () => {
    const acked: Acknowledged = { conversations: new Set(), turns: new Map() };
    for (let trial = 0; trial < TRIALS; trial++) {
      const writers = ['a', 'b'].map((name) => startWriter(dir, `${trial}${name}`, acked));
      await Promise.all(writers.map(async ({ child, firstAck, exited }, w) => {
        // Every fifth round kills one writer while it may still be opening (replaying the journal).
        if (trial % 5 === 0 && w === 0) await sleep(30 + Math.random() * 150);
        else {
          await Promise.race([firstAck, exited]);
          await sleep(Math.random() * 250);
        }
        child.kill('SIGKILL');
        await exited;
      }));

      const laterWarnings: string[] = [];
      const { store, warnings } = await openConversationStore(dir, { compactAfterMs: 60_000, onWarning: (m) => laterWarnings.push(m) });
      assert.deepEqual(warnings, [], `round ${trial}: the database opened cleanly`);
      const records = new Map<string, Awaited<ReturnType<typeof store.get>>>();
      for (const id of acked.conversations) records.set(id, await store.get(id));
      for (const id of acked.conversations) assert.ok(records.get(id), `round ${trial}: conversation ${id} was acknowledged`);
      for (const [question, { conversationId, index }] of acked.turns) {
        const stored = records.get(conversationId)?.turns[index];
        assert.equal(stored?.question, question, `round ${trial}: turn ${question} was acknowledged at index ${index}`);
      }
      await store.close(); // compacts, after taking over a lock a killed writer may have left
      assert.deepEqual(laterWarnings, []);
    }
    assert.ok(acked.turns.size > TRIALS * 2, `writers got far enough (${acked.turns.size} turns acknowledged)`);
    const leftovers = fs.readdirSync(dir).filter((name) => !/^(catalog\.json|turns-\d\d\.db|conversations\.journal-\d+\.jsonl)$/.test(name));
    assert.deepEqual(leftovers, [], 'no temp or lock files are left after a clean close');
  });
});
