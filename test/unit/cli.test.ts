import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
});
