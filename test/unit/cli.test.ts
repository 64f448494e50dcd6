import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The built CLI, run as a user would run it.
const CLI = path.resolve(__dirname, '../../../dist/cli.js');

function run(args: string[], options: { asNobody?: boolean } = {}) {
  const command = options.asNobody ? 'setpriv' : process.execPath;
  const argv = options.asNobody ? ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, CLI, ...args] : [CLI, ...args];
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-cli-'));

describe('repo-wiki CLI', function () {
  this.timeout(20000);

  it('init creates a wiki that lints clean, and a second init changes nothing', () => {
    const ws = tempDir();
    const first = run(['init', '--workspace', ws]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /Created \d+ files/);
    for (const file of ['SCHEMA.md', 'index.json', 'index.md', 'log.jsonl', '.gitattributes', '.gitignore', 'pages/welcome.md']) {
      assert.ok(fs.existsSync(path.join(ws, '.wiki', file)), file);
    }
    assert.match(fs.readFileSync(path.join(ws, '.wiki/.gitattributes'), 'utf8'), /log\.jsonl merge=union/);
    const before = fs.readFileSync(path.join(ws, '.wiki/index.json'), 'utf8');
    assert.equal(run(['init', '--workspace', ws]).stdout.trim(), `${path.join(ws, '.wiki')} already exists; nothing was changed.`);
    assert.equal(fs.readFileSync(path.join(ws, '.wiki/index.json'), 'utf8'), before);
    const lint = run(['lint', '--workspace', ws]);
    assert.equal(lint.code, 0, lint.stdout);
    assert.match(lint.stdout, /2 pages checked: 0 errors/);
  });

  it('lint exits 1 on errors and prints 1-based positions in JSON', () => {
    const ws = tempDir();
    run(['init', '--workspace', ws]);
    const page = path.join(ws, '.wiki/pages/welcome.md');
    fs.appendFileSync(page, '\nSee [[nowhere]].\n');
    const result = run(['lint', '--workspace', ws, '--format', 'json']);
    assert.equal(result.code, 1);
    const report = JSON.parse(result.stdout);
    assert.equal(report.pagesChecked, 2);
    const broken = report.issues.find((i: { code: string }) => i.code === 'broken-link');
    const line = fs.readFileSync(page, 'utf8').split('\n').findIndex((l) => l.includes('[[nowhere]]')) + 1;
    assert.deepEqual(broken, { page: '.wiki/pages/welcome.md', line, column: 5, code: 'broken-link', severity: 'error', message: 'Link [[nowhere]] points to no page.' });
  });

  it('index rebuild regenerates a conflicted index', () => {
    const ws = tempDir();
    run(['init', '--workspace', ws]);
    const indexFile = path.join(ws, '.wiki/index.json');
    const good = fs.readFileSync(indexFile, 'utf8');
    fs.writeFileSync(indexFile, `<<<<<<< HEAD\n${good}=======\n{}\n>>>>>>> b\n`);
    const result = run(['index', 'rebuild', '--workspace', ws, '--format', 'json']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { pages: 2, changed: true });
    assert.equal(fs.readFileSync(indexFile, 'utf8'), good);
  });

  it('explains usage errors and a missing wiki with exit code 2', () => {
    const ws = tempDir();
    assert.equal(run([]).code, 2);
    assert.match(run(['frobnicate', '--workspace', ws]).stderr, /Unknown command "frobnicate"/);
    assert.match(run(['lint', '--workspace', ws, '--format', 'xml']).stderr, /--format must be text or json/);
    const missing = run(['lint', '--workspace', ws]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no \.wiki\/ folder.*repo-wiki init/);
  });

  it('reports a read-only workspace clearly and writes nothing', () => {
    const ws = tempDir();
    fs.chmodSync(ws, 0o555);
    // root ignores permission bits, so run as an unprivileged user then.
    const result = run(['init', '--workspace', ws], { asNobody: process.getuid?.() === 0 });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /read-only or access is denied.*Nothing was changed/);
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  describe('drift', () => {
    const DEMO = path.resolve(__dirname, '../../../demo');
    const demoCopy = () => {
      const ws = tempDir();
      fs.cpSync(DEMO, ws, { recursive: true });
      return ws;
    };

    it('prints the JSON report of the demo: two drifted citations, no errors, exit 0', () => {
      const result = run(['drift', '--workspace', demoCopy(), '--format', 'json']);
      assert.equal(result.code, 0, result.stderr);
      const report = JSON.parse(result.stdout);
      assert.equal(report.pagesChecked, 6);
      assert.equal(report.citationsChecked, 47);
      assert.deepEqual(report.issues.map((i: { code: string; citation: string }) => `${i.code} ${i.citation}`), [
        'signature-changed src/todos.ts:TodoStore.complete',
        'body-changed src/todos.ts:TodoStore',
      ]);
      const [signature] = report.issues;
      assert.deepEqual(Object.keys(signature), ['page', 'line', 'column', 'citation', 'code', 'severity', 'message']);
      assert.equal(signature.page, '.wiki/pages/errors-become-responses-at-the-edge.md');
      const lines = fs.readFileSync(path.join(DEMO, signature.page), 'utf8').split('\n');
      assert.equal(signature.line, lines.findIndex((l) => l.includes('`src/todos.ts:TodoStore.complete`')) + 1);
      assert.equal(signature.column, lines[signature.line - 1].indexOf('src/todos.ts:TodoStore.complete') + 1);
      assert.equal(signature.severity, 'warning');
    });

    it('exits 1 on a missing symbol and prints GitHub Actions annotations', () => {
      const ws = demoCopy();
      const errors = path.join(ws, 'src/errors.ts');
      fs.writeFileSync(errors, fs.readFileSync(errors, 'utf8').replace('export function isHttpError(', 'export function isHttpFailure('));
      const result = run(['drift', '--workspace', ws, '--format', 'github']);
      assert.equal(result.code, 1, result.stderr);
      const annotations = result.stdout.trim().split('\n');
      assert.equal(annotations.length, 3);
      const missing = annotations.find((a) => a.startsWith('::error '));
      assert.match(missing ?? '', /^::error file=\.wiki\/pages\/errors-become-responses-at-the-edge\.md,line=\d+,col=\d+,title=repo-wiki missing-symbol::isHttpError is not declared in src\/errors\.ts\.$/);
      assert.ok(annotations.some((a) => a.startsWith('::warning ') && a.includes('signature-changed')));
      assert.ok(annotations.some((a) => a.startsWith('::notice ') && a.includes('body-changed')));
      const text = run(['drift', '--workspace', ws]);
      assert.equal(text.code, 1);
      assert.match(text.stdout, /47 citations in 6 pages checked: 1 error, 2 other issues\./);
    });

    it('--stamp records fingerprints only for citations that have none, and logs it', () => {
      const ws = demoCopy();
      const page = path.join(ws, '.wiki/pages/middleware-conventions.md');
      fs.appendFileSync(page, '\nMethods are listed in `src/types.ts:Method`.\n');
      const before = JSON.parse(run(['drift', '--workspace', ws, '--format', 'json']).stdout);
      assert.ok(before.issues.some((i: { code: string; citation: string }) => i.code === 'unverified' && i.citation === 'src/types.ts:Method'));
      const stamped = run(['drift', '--workspace', ws, '--stamp']);
      assert.equal(stamped.code, 0, stamped.stderr);
      assert.match(stamped.stdout, /Stamped 1 citation\./);
      assert.match(fs.readFileSync(page, 'utf8'), /"src\/types\.ts:Method": "sig:[0-9a-f]{8} body:[0-9a-f]{8}"/);
      const after = JSON.parse(run(['drift', '--workspace', ws, '--format', 'json']).stdout);
      assert.deepEqual(after.issues.map((i: { code: string }) => i.code), ['signature-changed', 'body-changed'], 'drifted citations are not re-stamped');
      const log = fs.readFileSync(path.join(ws, '.wiki/log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual({ ...log.at(-1), ts: undefined }, { ts: undefined, op: 'stamp', pages: ['middleware-conventions'], citations: ['src/types.ts:Method'] });
    });

    it('rejects --format github outside drift', () => {
      const ws = tempDir();
      run(['init', '--workspace', ws]);
      const result = run(['lint', '--workspace', ws, '--format', 'github']);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /--format must be text or json/);
    });
  });

  describe('query', () => {
    const DEMO = path.resolve(__dirname, '../../../demo');
    const { startMockAnthropic } = require(path.resolve(__dirname, '../../../test/harness/mockAnthropic.cjs'));

    function runAsync(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
      const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
    }

    it('answers offline from retrieval and prints the pages in retrieval order as JSON', async () => {
      const result = await runAsync(['query', 'How do errors become HTTP responses?', '--workspace', DEMO, '--format', 'json'], {});
      assert.equal(result.code, 0, result.stderr);
      const answer = JSON.parse(result.stdout);
      assert.deepEqual(Object.keys(answer), ['answer', 'offline', 'pages']);
      assert.equal(answer.offline, true);
      assert.match(answer.answer, /^\*\*Offline answer\*\*/);
      assert.equal(answer.pages[0].slug, 'errors-become-responses-at-the-edge');
      const scores = answer.pages.map((p: { score: number }) => p.score);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    });

    it('asks the model through the real SDK when a key is set, with the chat prompt', async () => {
      const mock = await startMockAnthropic({ validKey: 'sk-ant-cli-key-1' });
      try {
        mock.script({ text: 'Errors are thrown and turned into responses in [[errors-become-responses-at-the-edge]].' });
        const result = await runAsync(['query', 'How do errors become HTTP responses?', '--workspace', DEMO], { ANTHROPIC_API_KEY: 'sk-ant-cli-key-1', ANTHROPIC_BASE_URL: mock.url });
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /^Errors are thrown and turned into responses in \[\[errors-become-responses-at-the-edge\]\]\.\n/);
        assert.match(result.stdout, /Pages used: \[\[errors-become-responses-at-the-edge\]\]/);
        const body = mock.requests[0].body;
        assert.equal(body.system[1].cache_control.type, 'ephemeral');
        assert.match(body.messages.at(-1).content, /<page slug="errors-become-responses-at-the-edge"/);
        const offline = await runAsync(['query', 'How do errors become HTTP responses?', '--workspace', DEMO, '--offline', '--format', 'json'], { ANTHROPIC_API_KEY: 'sk-ant-cli-key-1', ANTHROPIC_BASE_URL: mock.url });
        assert.equal(JSON.parse(offline.stdout).offline, true);
        assert.equal(mock.requests.length, 1, '--offline sends nothing');
      } finally {
        await mock.close();
      }
    });

    it('a rejected key exits 2 with the next step, and without the key', async () => {
      const mock = await startMockAnthropic({ validKey: 'sk-ant-right-key' });
      try {
        const result = await runAsync(['query', 'anything', '--workspace', DEMO], { ANTHROPIC_API_KEY: 'sk-ant-wrong-key', ANTHROPIC_BASE_URL: mock.url });
        assert.equal(result.code, 2);
        assert.match(result.stderr, /API key was rejected/);
        assert.doesNotMatch(result.stderr + result.stdout, /sk-ant-wrong-key/);
      } finally {
        await mock.close();
      }
    });
  });
});
