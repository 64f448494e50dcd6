import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCliProcess as cli } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

const DEMO = path.resolve(__dirname, '../../../../demo');
const { startMockAnthropic } = require(path.resolve(__dirname, '../../../../test/harness/mockAnthropic.cjs'));
const KEY = 'sk-ant-cli-generate-key';

/** Eight pages, the fewest an outline may have; each covers one file of the demo. */
const TOPICS = [
  ['Todo store', 'keeps todos in memory and completes them'],
  ['App assembly', 'wires middleware, routes and store into one application'],
  ['Todo routes', 'maps HTTP verbs onto store operations'],
  ['Pipeline class', 'holds middleware chains before handlers run'],
  ['Middleware composition', 'folds functions right to left around handlers'],
  ['Routing table', 'matches paths with parameters against registered patterns'],
  ['HTTP errors', 'carry status codes that become JSON responses'],
  ['Request methods', 'enumerate GET, POST, PUT and DELETE verbs'],
];
const OUTLINE = TOPICS.map(([title, purpose], i) => ({ slug: `gen-${i + 1}`, title, topic: 'architecture', purpose: `It ${purpose}.`, files: ['src/todos.ts'] }));
const SYMBOLS = ['src/todos.ts:TodoStore.complete', 'src/todos.ts:createApp', 'src/todos.ts:todoRoutes', 'src/pipeline.ts:Pipeline', 'src/pipeline.ts:compose', 'src/router.ts:Router', 'src/errors.ts:HttpError', 'src/types.ts:Method'];

function outlineReply(usage?: { input_tokens: number; output_tokens: number }) {
  return { text: JSON.stringify({ pages: OUTLINE }), ...(usage ? { usage } : {}) };
}

function pageReply(i: number, citation = SYMBOLS[i], usage?: { input_tokens: number; output_tokens: number }) {
  const { slug, title } = OUTLINE[i];
  const plan = { pages: [{ action: 'create', slug, title, topic: 'architecture', summary: OUTLINE[i].purpose, tags: [], body: `# ${title}\n\n\`${citation}\`: ${TOPICS[i][1]}.`, citations: [citation] }], corroborate: [], links: [] };
  return { text: JSON.stringify(plan), ...(usage ? { usage } : {}) };
}

interface Mock { url: string; requests: { body: { messages: { role: string; content: unknown }[] } }[]; script(...replies: unknown[]): void; close(): Promise<void> }

describe('repo-wiki generate', function () {
  this.timeout(60000);
  let mock: Mock;
  let ws: string;
  const env = () => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: mock.url });
  const page = (slug: string) => path.join(ws, '.wiki', 'pages', `${slug}.md`);
  const logText = () => fs.readFileSync(path.join(ws, '.wiki', 'log.jsonl'), 'utf8');
  const generateLines = () => logText().trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((entry) => entry.op === 'generate');
  const sent = (i: number) => JSON.stringify(mock.requests[i].body.messages);

  beforeEach(async () => {
    ws = tempDir('repo-wiki-generate-');
    fs.cpSync(DEMO, ws, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: ws });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'demo');
    mock = await startMockAnthropic({ validKey: KEY });
  });
  afterEach(async () => mock.close());

  it('drafts an outline, then writes each page after reading the code, stamped with the commit, and logs the run once', async () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ws, encoding: 'utf8' }).trim();
    mock.script(outlineReply(), { toolUses: [{ name: 'read_code', input: { citation: 'src/todos.ts:TodoStore.complete' } }] }, ...OUTLINE.map((_, i) => pageReply(i)));
    const result = await cli(['generate', '--workspace', ws, '--yes'], env());
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Outline \(8 pages\):\nto write {2}gen-1 {2}Todo store: It keeps todos in memory and completes them\./);
    assert.match(result.stderr, /writing 1\/8: gen-1\n {2}Read .*todos/);
    assert.match(result.stdout, /Written: 8 page\(s\)\./);
    for (const { slug } of OUTLINE) assert.ok(fs.existsSync(page(slug)), slug);
    assert.match(sent(0), /package\.json/, 'the outline sees the manifests');
    assert.match(sent(0), /TodoStore/, 'the outline sees the repository map');
    assert.match(sent(2), /complete\(/, 'the code the tool read went back to the model');
    const first = fs.readFileSync(page('gen-1'), 'utf8');
    assert.match(first, /"src\/todos.ts:TodoStore.complete": "sig:[0-9a-f]{8} body:[0-9a-f]{8} at:([0-9a-f]{12})"/);
    assert.equal(/ at:([0-9a-f]{12})"/.exec(first)![1], head.slice(0, 12));
    assert.match(first, /generate:gen-1/);
    const lines = generateLines();
    assert.equal(lines.length, 1);
    assert.deepEqual([lines[0].written.length, lines[0].rejected], [8, []]);
    assert.match(lines[0].model, /claude/);
    assert.ok(lines[0].tokens.input > 0 && lines[0].tokens.output > 0);
    const drift = await cli(['drift', '--workspace', ws, '--format', 'json'], {});
    assert.ok(!JSON.parse(drift.stdout).issues.some((issue: { page: string }) => issue.page.includes('gen-')), 'the generated pages have no drift');
  });

  it('sends an invented citation back once, then rejects that page, writes the others and exits 1', async () => {
    const invented = pageReply(0, 'src/todos.ts:TodoStore.teleport');
    mock.script(outlineReply(), invented, invented, ...OUTLINE.slice(1).map((_, i) => pageReply(i + 1)));
    const result = await cli(['generate', '--workspace', ws, '--yes'], env());
    assert.equal(result.code, 1, 'a rejected page fails the run (exit 1), though the others are written');
    assert.match(result.stderr, /repo-wiki generate: exit code 1, 1 page\(s\) rejected\./);
    assert.match(sent(2), /src\/todos\.ts:TodoStore\.teleport does not resolve/, 'the repair request names the problem');
    assert.match(result.stderr, /rejected gen-1:\n {2}\$?pages\[0\]\.citations: src\/todos\.ts:TodoStore\.teleport does not resolve/);
    assert.match(result.stdout, /Written: 7 page\(s\); rejected 1 \(gen-1\)/);
    assert.ok(!fs.existsSync(page('gen-1')));
    assert.ok(fs.existsSync(page('gen-8')));
    assert.deepEqual(generateLines().map((line) => line.rejected), [['gen-1']]);
  });

  it('a write that fails midway still logs the run, with the page written before it, then exits 2 naming the failure', async () => {
    // A folder where the second page goes: listing the pages skips it, writing the page fails.
    fs.mkdirSync(page('gen-2'));
    mock.script(outlineReply(), pageReply(0), pageReply(1), pageReply(2));
    const result = await cli(['generate', '--workspace', ws, '--yes'], env());
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /repo-wiki generate: stopped, .*gen-2\.md/);
    assert.match(result.stderr, /The 1 page\(s\) written before it stay, and the run is logged; run again to resume\./);
    assert.ok(fs.existsSync(page('gen-1')));
    assert.equal(mock.requests.length, 3, 'no page is asked for after the failure');
    const lines = generateLines();
    assert.equal(lines.length, 1, logText());
    assert.deepEqual([lines[0].written, lines[0].stopped], [['gen-1'], 'error']);
  });

  it('stops cleanly before the budget is overrun, and a second run resumes, skipping the pages written', async () => {
    // The first page's bill leaves too little for the next request's worst case.
    mock.script(outlineReply({ input_tokens: 1000, output_tokens: 100 }), pageReply(0, SYMBOLS[0], { input_tokens: 50_000, output_tokens: 100 }));
    const stopped = await cli(['generate', '--workspace', ws, '--yes', '--budget', '60000'], env());
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stderr, /Stopped before the budget ran out: .* 7 page\(s\) not written; run again/);
    assert.equal(mock.requests.length, 2, 'the request that could overrun the budget was never sent');
    assert.ok(fs.existsSync(page('gen-1')));
    const [line] = generateLines();
    assert.deepEqual([line.written, line.stopped, line.tokens], [['gen-1'], 'budget', { input: 51_000, output: 200 }]);

    mock.script(outlineReply(), ...OUTLINE.slice(1).map((_, i) => pageReply(i + 1)));
    const resumed = await cli(['generate', '--workspace', ws, '--yes'], env());
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /written {2}gen-1 /);
    assert.match(resumed.stderr, /writing 1\/7: gen-2/);
    const asked = (slug: string) => mock.requests.slice(3).some((request) => JSON.stringify(request.body.messages).includes(`<page slug=\\"${slug}\\"`));
    assert.ok(asked('gen-2') && !asked('gen-1'), 'the page written is not asked for again');
    assert.equal(generateLines().length, 2);
    assert.ok(fs.existsSync(page('gen-8')));
  });

  it('--dry-run prints the outline and writes nothing; without a terminal or --yes nothing is written', async () => {
    const before = logText();
    mock.script(outlineReply(), outlineReply());
    const dry = await cli(['generate', '--workspace', ws, '--dry-run'], env());
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Would write 8 page\(s\): gen-1, gen-2/);
    assert.equal(mock.requests.length, 1, 'only the outline was asked for');
    const unattended = await cli(['generate', '--workspace', ws], env());
    assert.equal(unattended.code, 0, unattended.stderr);
    assert.match(unattended.stderr, /Not written: pass --yes/);
    assert.equal(mock.requests.length, 2);
    assert.ok(!fs.existsSync(page('gen-1')));
    assert.equal(logText(), before);
  });

  it('offline it writes nothing, exits 2 and says which model setting to configure', async () => {
    const before = logText();
    const result = await cli(['generate', '--workspace', ws, '--yes'], {});
    assert.equal(result.code, 2);
    assert.match(result.stderr, /the librarian needs a model \(.*\)\. Set --model provider\/model \(or REPO_WIKI_MODEL\) and that provider's key: ANTHROPIC_API_KEY/);
    assert.equal(logText(), before);
    assert.deepEqual(fs.readdirSync(path.join(ws, '.wiki', 'pages')).filter((name) => name.startsWith('gen-')), []);
  });

  it('--update sends only the page whose cited method changed, with the diff since its commit, and re-stamps it', async () => {
    // Both pages that cite the store record the commit they were verified at.
    const slug = 'errors-become-responses-at-the-edge';
    const reviewed = await cli(['drift', '--workspace', ws, '--review', slug, '--review', 'testing-handlers-in-process'], {});
    assert.equal(reviewed.code, 0, reviewed.stdout + reviewed.stderr);
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-qam', 'stamped'], { cwd: ws });
    const todos = path.join(ws, 'src', 'todos.ts');
    fs.writeFileSync(todos, fs.readFileSync(todos, 'utf8').replace('    todo.done = done;\n', '    todo.done = done;\n    todo.completedAt = Date.now();\n'));
    const restamp = { text: JSON.stringify({ pages: [], corroborate: [], links: [] }) };
    mock.script(restamp);
    const result = await cli(['generate', '--update', '--workspace', ws, '--yes'], env());
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`Pages with drift \\(1\\):\\n  ${slug}  body-changed src/todos.ts:TodoStore.complete\\n`));
    assert.equal(mock.requests.length, 1, 'untouched pages are never sent');
    assert.match(sent(0), /\+ {4}todo\.completedAt = Date\.now\(\);/, 'the model receives the diff of the method');
    assert.ok(!/<page slug=\\"(request-pipeline|header-names-are-lower-cased|middleware-conventions|router-trailing-slashes|testing-handlers-in-process)/.test(sent(0)), 'no other page is sent');
    assert.match(result.stdout, /Updated: 0 page\(s\); re-stamped: 1\./);
    const [line] = generateLines();
    assert.deepEqual([line.update, line.restamped], [true, [slug]]);
    const drift = await cli(['drift', '--workspace', ws, '--format', 'json'], {});
    assert.deepEqual(JSON.parse(drift.stdout).issues, [], 'the re-stamped page has no drift left');
  });

  it('refuses a bad .wiki/generate.json naming the field, before asking the model', async () => {
    fs.writeFileSync(path.join(ws, '.wiki', 'generate.json'), JSON.stringify({ pages: [{ title: 'Errors' }] }));
    const result = await cli(['generate', '--workspace', ws, '--yes'], env());
    assert.equal(result.code, 2);
    assert.match(result.stderr, /\.wiki\/generate\.json: pages\[0\]\.purpose must be one line/);
    assert.equal(mock.requests.length, 0);
  });
});
