import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, runCliProcess } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

const DEMO = path.resolve(__dirname, '../../../../demo');
const { startMockAnthropic } = require(path.resolve(__dirname, '../../../../test/harness/mockAnthropic.cjs'));
const KEY = 'sk-ant-cli-ingest-key';

const cli = runCliProcess;

const PLAN = JSON.stringify({
  pages: [{
    action: 'create', slug: 'todo-completion', title: 'Completing todos', topic: 'patterns',
    summary: 'What completing a todo does.', tags: ['todos'],
    body: '# Completing todos\n\n`src/todos.ts:TodoStore.complete` marks a todo done.', citations: ['src/todos.ts:TodoStore.complete'],
  }],
  corroborate: [],
  links: [],
});

describe('repo-wiki ingest', function () {
  this.timeout(30000);
  let mock: { url: string; requests: { body: { messages: { content: string }[] } }[]; script(...r: unknown[]): void; close(): Promise<void> };
  let ws: string;
  const env = () => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: mock.url });

  beforeEach(async () => {
    ws = tempDir('repo-wiki-ingest-');
    fs.cpSync(DEMO, ws, { recursive: true });
    fs.mkdirSync(path.join(ws, 'docs'));
    fs.writeFileSync(path.join(ws, 'docs', 'todos.md'), '# Todos\n\nCompleting a todo marks it done.\n');
    mock = await startMockAnthropic({ validKey: KEY });
  });
  afterEach(async () => mock.close());

  it('with --yes writes the plan, stamps its citations and logs the source and tokens', async () => {
    mock.script({ text: PLAN, usage: { input_tokens: 900, output_tokens: 120 } });
    const result = await cli(['ingest', 'docs/todos.md', '--workspace', ws, '--yes'], env());
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /ingesting 1\/1: docs\/todos.md/);
    assert.match(result.stdout, /create\s+\.wiki\/pages\/todo-completion\.md/);
    assert.match(result.stdout, /Applied: 1 created/);
    const page = fs.readFileSync(path.join(ws, '.wiki', 'pages', 'todo-completion.md'), 'utf8');
    assert.match(page, /"src\/todos.ts:TodoStore.complete": "sig:[0-9a-f]{8} body:[0-9a-f]{8}"/);
    const entry = JSON.parse(fs.readFileSync(path.join(ws, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').at(-1)!);
    assert.deepEqual([entry.op, entry.sources, entry.tokens], ['ingest', ['file:docs/todos.md'], { input: 900, output: 120 }]);
    const drift = await cli(['drift', '--workspace', ws, '--format', 'json'], {});
    assert.ok(!JSON.parse(drift.stdout).issues.some((i: { page: string }) => i.page.includes('todo-completion')), 'the new page has no drift');
  });

  it('--dry-run and a run without a terminal or --yes write nothing', async () => {
    const before = fs.readFileSync(path.join(ws, '.wiki', 'log.jsonl'), 'utf8');
    mock.script({ text: PLAN }, { text: PLAN });
    const dry = await cli(['ingest', 'docs', '--workspace', ws, '--dry-run', '--format', 'json'], env());
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(JSON.parse(dry.stdout).changes.map((c: { slug: string; kind: string }) => [c.slug, c.kind]), [['todo-completion', 'create']]);
    const unattended = await cli(['ingest', 'docs/todos.md', '--workspace', ws], env());
    assert.equal(unattended.code, 0);
    assert.match(unattended.stderr, /Not applied: pass --yes/);
    assert.ok(!fs.existsSync(path.join(ws, '.wiki', 'pages', 'todo-completion.md')));
    assert.equal(fs.readFileSync(path.join(ws, '.wiki', 'log.jsonl'), 'utf8'), before);
  });

  it('an invented citation is rejected with the raw reply, exit 2, nothing written', async () => {
    mock.script({ text: PLAN.replace(/TodoStore\.complete/g, 'TodoStore.teleport') });
    const result = await cli(['ingest', 'docs/todos.md', '--workspace', ws, '--yes'], env());
    assert.equal(result.code, 2);
    assert.match(result.stderr, /src\/todos\.ts:TodoStore\.teleport does not resolve/);
    assert.match(result.stderr, /--- raw reply 1 of 1 ---/);
    assert.match(result.stderr, /\nrepo-wiki: The librarian's plan was rejected, so nothing was written: .* The raw reply was printed to stderr above\. Try again, or ingest a smaller source\.\n$/);
    assert.ok(!fs.existsSync(path.join(ws, '.wiki', 'pages', 'todo-completion.md')));
  });

  it('skips a source unchanged since its last ingest without asking the model; --force and a changed file ask again, with the diff', async () => {
    execFileSync('git', ['init', '-q'], { cwd: ws });
    execFileSync('git', ['add', 'docs/todos.md'], { cwd: ws }); // git keeps the text this ingest sees
    mock.script({ text: PLAN });
    assert.equal((await cli(['ingest', 'docs/todos.md', '--workspace', ws, '--yes'], env())).code, 0);
    assert.equal(mock.requests.length, 1);

    const again = await cli(['ingest', 'docs/todos.md', '--workspace', ws, '--yes'], env());
    assert.equal(again.code, 0, again.stderr);
    assert.equal(mock.requests.length, 1, 'no request for an unchanged source');
    assert.match(again.stderr, /skipped docs\/todos\.md: unchanged since its last ingest on \d{4}-\d{2}-\d{2} \(--force ingests it again\)/);
    assert.match(again.stdout, /Nothing to ingest: every source is unchanged since its last ingest/);

    mock.script({ text: '{"pages": [], "corroborate": [], "links": []}' });
    const forced = await cli(['ingest', 'docs/todos.md', '--workspace', ws, '--yes', '--force'], env());
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(mock.requests.length, 2);

    fs.appendFileSync(path.join(ws, 'docs', 'todos.md'), 'Completing it twice is harmless.\n');
    mock.script({ text: '{"pages": [], "corroborate": [], "links": []}' });
    assert.equal((await cli(['ingest', 'docs/todos.md', '--workspace', ws, '--yes'], env())).code, 0);
    assert.equal(mock.requests.length, 3);
    assert.match(mock.requests[2].body.messages[0].content, /<source_diff path="docs\/todos.md">[\s\S]*\+Completing it twice is harmless\./);
  });

  it('a failed ingest records nothing: the retry asks the model again', async () => {
    mock.script({ status: 400, message: 'prompt is too long' }, { text: PLAN });
    const failed = await cli(['ingest', 'docs/todos.md', '--workspace', ws, '--yes'], env());
    assert.equal(failed.code, 2);
    const retry = await cli(['ingest', 'docs/todos.md', '--workspace', ws, '--yes'], env());
    assert.equal(retry.code, 0, retry.stderr);
    assert.match(retry.stdout, /Applied: 1 created/);
    assert.equal(mock.requests.length, 2);
  });

  it('without a key, says what to set and exits 2', async () => {
    const result = await cli(['ingest', 'docs/todos.md', '--workspace', ws], {});
    assert.equal(result.code, 2);
    assert.match(result.stderr, /the librarian needs a model \(anthropic\/claude-sonnet-5-5: no API key \(ANTHROPIC_API_KEY is not set.*Set --model provider\/model/);
  });

  it('says "not found" only of a path that does not exist; a path it cannot read is reported as what it is', () => {
    fs.symlinkSync('loop.md', path.join(ws, 'docs', 'loop.md'));
    fs.mkdirSync(path.join(ws, 'locked'));
    fs.writeFileSync(path.join(ws, 'locked', 'notes.md'), '# Notes\n');
    fs.chmodSync(path.join(ws, 'locked'), 0o000);
    fs.chmodSync(ws, 0o755);
    // root ignores permission bits, so run as an unprivileged user then. Nothing is left to send: no request is made.
    const asNobody = process.getuid?.() === 0;
    const args = [CLI, 'ingest', 'docs/missing.md', 'docs/loop.md', 'locked/notes.md', '--workspace', ws];
    const result = spawnSync(asNobody ? 'setpriv' : process.execPath, asNobody ? ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args] : args, {
      encoding: 'utf8', env: { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: mock.url },
    });
    fs.chmodSync(path.join(ws, 'locked'), 0o755);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^skipped docs\/missing\.md \(not found\)$/m);
    assert.match(result.stderr, /^skipped docs\/loop\.md \(cannot read: ELOOP\b/m);
    assert.match(result.stderr, /^skipped locked\/notes\.md \(cannot read: permission denied\)$/m);
    assert.match(result.stderr, /nothing to ingest/);
    assert.equal(mock.requests.length, 0);
  });

  it('never sends a secret-looking file or a link out of the workspace, and says why', async () => {
    const outside = tempDir('outside-');
    fs.writeFileSync(path.join(outside, 'private.md'), '# Private\n\nNot for the model.\n');
    fs.symlinkSync(path.join(outside, 'private.md'), path.join(ws, 'docs', 'linked.md'));
    fs.writeFileSync(path.join(ws, 'docs', '.env'), 'API_TOKEN=abc\n');
    const result = await cli(['ingest', 'docs/linked.md', 'docs/.env', '--workspace', ws, '--yes'], env());
    assert.match(result.stderr + result.stdout, /docs\/linked\.md is, or lies inside, a symbolic link that leads out of the workspace folder/);
    assert.match(result.stderr + result.stdout, /docs\/\.env is named like a file that holds secrets/);
    assert.equal(mock.requests.length, 0, 'nothing was sent');
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it("tells the librarian each page's age from git history", async () => {
    const run = (...args: string[]) => execFileSync('git', args, { cwd: ws });
    run('init', '-q', '-b', 'main');
    run('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'add', '.');
    run('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'demo');
    mock.script({ text: JSON.stringify({ pages: [], corroborate: [], links: [] }) });
    const result = await cli(['ingest', 'docs/todos.md', '--workspace', ws, '--yes'], env());
    assert.equal(result.code, 0, result.stderr);
    const system = JSON.stringify((mock.requests[0].body as unknown as { system: { text: string }[] }).system);
    assert.match(system, /\[\[request-pipeline\]\][^\n]*\[recently added/);
  });
});
