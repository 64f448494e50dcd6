import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, runCliProcess, type CliRun } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

const DEMO = path.resolve(__dirname, '../../../../demo');
/** The demo drifts on two pages: a signature and a body changed since they were verified. */
const FLAGGED = [
  '  .wiki/pages/errors-become-responses-at-the-edge.md  signature-changed src/todos.ts:TodoStore.complete',
  '  .wiki/pages/testing-handlers-in-process.md  body-changed src/todos.ts:TodoStore',
];

function demoCopy(): string {
  const ws = tempDir('repo-wiki-review-flagged-');
  fs.cpSync(DEMO, ws, { recursive: true });
  return ws;
}

const pageTexts = (ws: string) => fs.readdirSync(path.join(ws, '.wiki/pages')).map((name) => fs.readFileSync(path.join(ws, '.wiki/pages', name), 'utf8'));

/** Runs the CLI on a terminal (util-linux `script` gives it a pseudo-terminal), typing `answer` at its question. */
function onTerminal(args: string[], answer: string): Promise<CliRun> {
  const command = [process.execPath, CLI, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(`${answer}\n`);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('repo-wiki drift --review-flagged', function () {
  this.timeout(60000);

  it('without a terminal and without --yes: lists the flagged pages, stamps nothing, and says to pass --yes (exit 2)', async () => {
    const ws = demoCopy();
    const before = pageTexts(ws);
    const result = await runCliProcess(['drift', '--workspace', ws, '--review-flagged'], {});
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.equal(result.stdout, `Pages to review (2), and what drift flags on each:\n${FLAGGED.join('\n')}\n`);
    assert.match(result.stderr, /^repo-wiki: drift --review-flagged stamps 2 pages as reviewed and asks first, but there is no terminal to ask on\. Check them against the code, then pass --yes to stamp them without asking\.\n$/);
    assert.deepEqual(pageTexts(ws), before, 'no page was written');
  });

  it('with --yes: reviews every flagged page, so drift is clean, and then finds nothing to review', async () => {
    const ws = demoCopy();
    const logFile = path.join(ws, '.wiki/log.jsonl');
    const logged = fs.readFileSync(logFile, 'utf8').trim().split('\n').length;
    const result = await runCliProcess(['drift', '--workspace', ws, '--review-flagged', '--yes'], {});
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.startsWith(`Pages to review (2), and what drift flags on each:\n${FLAGGED.join('\n')}\nStamped `), result.stdout);
    assert.match(result.stdout, /: 0 errors, 0 other issues\.\n$/);
    const log = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(logged).map((line) => JSON.parse(line));
    assert.deepEqual(log.filter((entry) => entry.op === 'stamp').map((entry) => entry.pages[0]).sort(), ['errors-become-responses-at-the-edge', 'testing-handlers-in-process']);
    const again = await runCliProcess(['drift', '--workspace', ws, '--review-flagged'], {});
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^No page has drift a review clears \(changed or unverified citations\)\.\n/);
  });

  it('on a terminal, asks after the list: "n" stamps nothing, "y" reviews them all', async () => {
    const ws = demoCopy();
    const before = pageTexts(ws);
    const declined = await onTerminal(['drift', '--workspace', ws, '--review-flagged'], 'n');
    assert.equal(declined.code, 0, declined.stdout);
    assert.match(declined.stdout, /Pages to review \(2\)[^]*TodoStore\r?\n[^]*Have you checked these 2 pages against the code, and stamp them as reviewed\? \[y\/N\][^]*Nothing was stamped\./);
    assert.deepEqual(pageTexts(ws), before);
    const accepted = await onTerminal(['drift', '--workspace', ws, '--review-flagged'], 'y');
    assert.equal(accepted.code, 0, accepted.stdout);
    assert.match(accepted.stdout, /\[y\/N\][^]*Stamped \d+ citations\.[^]*: 0 errors, 0 other issues\./);
  });

  it('--yes alone is a usage error naming --review-flagged', async () => {
    const result = await runCliProcess(['drift', '--workspace', demoCopy(), '--yes'], {});
    assert.equal(result.code, 2);
    assert.equal(result.stderr, 'repo-wiki: drift --yes only answers --review-flagged\'s question; add --review-flagged, or leave --yes out.\n');
  });
});
