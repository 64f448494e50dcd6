import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// Every CLI command against a repository built to hurt it (test/harness/hostileRepo.cjs): FIFOs,
// devices, links out of the workspace, a 3 GB file, terminal escapes, a 3 MB SCHEMA.md. Each
// command runs in its own copy, all at once, so a hang costs its 20 s only once.

const ROOT = path.resolve(__dirname, '../../../..');
const CLI = path.join(ROOT, 'dist/cli.js');
const { makeHostileRepo, snapshotOutside } = require(path.join(ROOT, 'test/harness/hostileRepo.cjs'));
const { startMockAnthropic } = require(path.join(ROOT, 'test/harness/mockAnthropic.cjs'));
const KEY = 'sk-ant-hostile-key';
const HANG_MS = 20000;
const MAX_RSS_MB = 1500; // reading /dev/zero into memory is a failure too, caught before it hurts the machine

interface HostileRepo {
  root: string;
  outsideDir: string;
  outsideLog: string;
  badPages: { path: string; code: string }[];
  badCitations: { citation: string; code: string }[];
  citationsPage?: string;
  validCitation: string;
  escapeTitle: string;
  canaries: string[];
  schemaTail: string;
  regularPages: string[];
}

interface MockRequest { body: { system?: unknown; messages: { content: unknown }[] } }
interface Mock { url: string; requests: MockRequest[]; close(): Promise<void> }

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why the run was killed: it hung, or it grew past MAX_RSS_MB. */
  killed?: string;
}

interface Case {
  name: string;
  args: (repo: HostileRepo, scratch: string) => string[];
  pagesLinkOut?: boolean;
  /** Extra setup in the copy before the command runs. */
  prepare?: (repo: HostileRepo, scratch: string) => void;
  /** The librarian's reply, for ingest. */
  reply?: string;
  /** Exit codes the contract allows for this command on this repository. */
  codes: number[];
}

/** Spawns the CLI in its own process group; kills it (and anything it started) if it hangs or balloons. */
function runCli(args: string[], cwd: string, env: Record<string, string | undefined>): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    detached: true,
    env: { ...process.env, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let killed: string | undefined;
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const kill = (why: string) => {
    killed ??= why;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => kill(`hung: killed after ${HANG_MS / 1000} s`), HANG_MS);
  const watch = setInterval(() => {
    const rss = /VmRSS:\s+(\d+) kB/.exec(readProc(child.pid!))?.[1];
    if (rss && Number(rss) / 1024 > MAX_RSS_MB) kill(`used over ${MAX_RSS_MB} MB of memory (reading an endless file?)`);
  }, 200);
  return new Promise((resolve) => child.on('close', (code) => {
    clearTimeout(timer);
    clearInterval(watch);
    resolve({ code, stdout, stderr, killed });
  }));
}

function readProc(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}

const EMPTY_PLAN = JSON.stringify({ pages: [], corroborate: [], links: [] });
const CREATE_PLAN = JSON.stringify({
  pages: [{
    action: 'create', slug: 'pipeline-notes', title: 'Pipeline notes', topic: 'patterns', summary: 'Where requests run.', tags: [],
    body: '# Pipeline notes\n\n`src/pipeline.ts:Pipeline.run` runs a request.', citations: ['src/pipeline.ts:Pipeline.run'],
  }],
  corroborate: [],
  links: [],
});

const CASES: Case[] = [
  // With index.json gone, init does real work: copies the template, rebuilds the index, logs.
  { name: 'init', args: () => ['init'], prepare: (repo) => fs.rmSync(path.join(repo.root, '.wiki/index.json')), codes: [0, 2] },
  { name: 'index rebuild', args: () => ['index', 'rebuild'], codes: [0] },
  { name: 'lint', args: () => ['lint'], codes: [1] },
  { name: 'lint --fix', args: () => ['lint', '--fix'], codes: [1, 2] },
  { name: 'drift', args: () => ['drift'], codes: [1] },
  { name: 'drift --stamp', args: () => ['drift', '--stamp'], codes: [1, 2] },
  { name: 'drift --format json', args: () => ['drift', '--format', 'json'], codes: [1] },
  { name: 'query --offline', args: () => ['query', 'root passwd terminal escape sequences x', '--offline'], codes: [0] },
  { name: 'ingest a FIFO', args: () => ['ingest', 'src/fifo.ts', 'docs/notes.md', '--yes'], reply: EMPTY_PLAN, codes: [0, 2] },
  { name: 'ingest a link out', args: () => ['ingest', 'src/outside.ts', 'docs/notes.md', '--yes'], reply: CREATE_PLAN, codes: [0, 2] },
  {
    name: 'index merge with a missing file',
    args: (_repo, scratch) => ['index', 'merge', path.join(scratch, 'base.json'), path.join(scratch, 'ours.json'), path.join(scratch, 'missing.json'), '.wiki/index.json'],
    codes: [2],
  },
  {
    name: 'index merge with an entry no rebuild could produce',
    args: (_repo, scratch) => ['index', 'merge', path.join(scratch, 'base.json'), path.join(scratch, 'ours.json'), path.join(scratch, 'theirs.json'), '.wiki/index.json'],
    prepare: (_repo, scratch) => {
      const theirs = JSON.parse(fs.readFileSync(path.join(scratch, 'base.json'), 'utf8'));
      theirs.pages.push({ ...theirs.pages[0], slug: 'passwd', path: '../../../etc/passwd', title: 'Passwd' });
      fs.writeFileSync(path.join(scratch, 'theirs.json'), JSON.stringify(theirs, null, 2) + '\n');
    },
    codes: [1],
  },
  { name: 'hook install', args: () => ['hook', 'install'], prepare: (repo) => execFileSync('git', ['init', '-q', repo.root]), codes: [0] },
  // .wiki/pages is itself a link to a folder outside.
  { name: 'pages link out: drift --stamp', args: () => ['drift', '--stamp'], pagesLinkOut: true, codes: [0, 1, 2] },
  { name: 'pages link out: index rebuild', args: () => ['index', 'rebuild'], pagesLinkOut: true, codes: [0, 1, 2] },
  { name: 'pages link out: lint --fix', args: () => ['lint', '--fix'], pagesLinkOut: true, codes: [1, 2] },
];

interface Outcome {
  repo: HostileRepo;
  scratch: string;
  before: Record<string, string>;
  oursBefore: string;
  run: Run;
  requests: MockRequest[];
}

const STACK_FRAME = /^\s+at (?:.+ \()?(?:\/|node:|file:|<anonymous>|async ).*$/m;
// Raw control characters other than \n and \t, DEL, C1 controls (U+0080-U+009F) and bidi overrides.
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describe('repo-wiki CLI on a hostile repository', function () {
  this.timeout(60000);
  const outcomes = new Map<string, Outcome>();
  const temp: string[] = [];

  before(async function () {
    this.timeout(HANG_MS + 30000);
    await Promise.all(CASES.map(async (c) => {
      const base = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-hostile-'));
      temp.push(base);
      const repo: HostileRepo = makeHostileRepo(path.join(base, 'ws'), { outside: path.join(base, 'outside'), pagesLinkOut: c.pagesLinkOut === true });
      const scratch = path.join(base, 'scratch');
      fs.mkdirSync(scratch);
      fs.copyFileSync(path.join(repo.root, '.wiki/index.json'), path.join(scratch, 'base.json'));
      fs.copyFileSync(path.join(repo.root, '.wiki/index.json'), path.join(scratch, 'ours.json'));
      fs.mkdirSync(path.join(repo.root, 'docs'));
      fs.writeFileSync(path.join(repo.root, 'docs/notes.md'), '# Notes\n\nRequests run through the pipeline.\n');
      c.prepare?.(repo, scratch);
      const before = snapshotOutside(repo.outsideDir);
      const oursBefore = fs.readFileSync(path.join(scratch, 'ours.json'), 'utf8');
      let mock: Mock | undefined;
      if (c.reply !== undefined) mock = await startMockAnthropic({ validKey: KEY, defaultReply: () => ({ text: c.reply }) });
      try {
        const env = mock ? { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: mock.url } : {};
        const args = c.args(repo, scratch);
        const run = await runCli(args[0] === 'index' && args[1] === 'merge' ? args : [...args, '--workspace', repo.root], repo.root, env);
        outcomes.set(c.name, { repo, scratch, before, oursBefore, run, requests: mock ? [...mock.requests] : [] });
      } finally {
        await mock?.close();
      }
    }));
  });

  after(() => {
    for (const dir of temp) fs.rmSync(dir, { recursive: true, force: true });
  });

  const outcome = (name: string): Outcome => {
    const found = outcomes.get(name);
    assert.ok(found, `${name} ran`);
    return found;
  };
  const output = (o: Outcome) => `${o.run.stdout}\n${o.run.stderr}`;
  // Failure reports spell control characters out, so a failing run cannot drive the test's own terminal.
  const visible = (text: string) => text.slice(0, 3000).replace(new RegExp(RAW_CONTROL.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const show = (name: string, o: Outcome) => `${name} (exit ${o.run.code}${o.run.killed ? `, ${o.run.killed}` : ''})\n--- stdout ---\n${visible(o.run.stdout)}\n--- stderr ---\n${visible(o.run.stderr)}`;
  /** The outcome of a run that finished on its own (a hang fails here, by name, rather than as a missing line later). */
  const finished = (name: string): Outcome => {
    const o = outcome(name);
    assert.equal(o.run.killed, undefined, show(name, o));
    return o;
  };
  /** A line of output naming both the file (as a whole path, not a prefix of one) and the code. */
  const names = (o: Outcome, file: string, code: string) => {
    const whole = new RegExp(`(^|[\\s'"\`(])${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w/-]|\\.\\w)`);
    return output(o).split('\n').some((line) => whole.test(line) && line.includes(code));
  };

  for (const c of CASES) {
    it(`${c.name}: finishes, exits ${c.codes.join(' or ')} without a stack trace, writes nothing outside and leaks nothing`, () => {
      const o = outcome(c.name);
      assert.equal(o.run.killed, undefined, show(c.name, o));
      assert.ok(o.run.code !== null && c.codes.includes(o.run.code), `exit code: ${show(c.name, o)}`);
      assert.doesNotMatch(o.run.stderr, STACK_FRAME, `a stack trace: ${show(c.name, o)}`);
      assert.deepEqual(snapshotOutside(o.repo.outsideDir), o.before, `${c.name} changed a file outside the workspace (e.g. appended to the log's link target ${o.repo.outsideLog})`);
      const index = fs.existsSync(path.join(o.repo.root, '.wiki/index.json')) ? fs.readFileSync(path.join(o.repo.root, '.wiki/index.json'), 'utf8') : '';
      for (const canary of o.repo.canaries) {
        assert.ok(!output(o).includes(canary), `${canary} printed: ${show(c.name, o)}`);
        assert.ok(!index.includes(canary), `${canary} in .wiki/index.json after ${c.name}`);
        assert.ok(!o.requests.some((r) => JSON.stringify(r.body).includes(canary)), `${canary} sent to the model by ${c.name}`);
      }
      const raw = RAW_CONTROL.exec(output(o));
      assert.equal(raw, null, `raw control character ${JSON.stringify(raw?.[0])} in the output of ${show(c.name, o)}`);
      // A refused write names what it refused and that nothing changed (the log's link is the one trap here).
      if (o.run.code === 2 && !c.name.startsWith('index merge')) {
        assert.match(o.run.stderr, /log\.jsonl|\.wiki\/pages/, show(c.name, o));
        assert.match(o.run.stderr, /nothing was changed/i, show(c.name, o));
      }
    });
  }

  it('lint names the FIFO page and the page linking out, with their codes, and reports the 3 MB SCHEMA.md', () => {
    for (const name of ['lint', 'lint --fix']) {
      const o = finished(name);
      for (const bad of o.repo.badPages) assert.ok(names(o, bad.path, bad.code), `${name}: ${bad.code} on ${bad.path}\n${show(name, o)}`);
      assert.ok(names(o, '.wiki/SCHEMA.md', 'schema-too-large'), `${name}: schema-too-large\n${show(name, o)}`);
    }
  });

  it('lint shows the escape-laden title with ESC spelled out as \\x1b', () => {
    const o = finished('lint');
    assert.ok(o.run.stdout.includes('\\x1b]52;c;aGFja2Vk'), show('lint', o));
  });

  it('drift names every unreadable or outside citation, goes on with the valid one, and exits 1', () => {
    for (const name of ['drift', 'drift --stamp']) {
      const o = finished(name);
      for (const bad of o.repo.badCitations) assert.ok(names(o, bad.citation, bad.code), `${name}: ${bad.code} on ${bad.citation}\n${show(name, o)}`);
    }
    const o = finished('drift');
    assert.equal(o.run.code, 1, show('drift', o));
    assert.ok(names(o, o.repo.validCitation, 'unverified'), `the valid citation is still checked\n${show('drift', o)}`);
  });

  it('drift --format json: one issue per bad citation, on the citing page, whose message names the file', () => {
    const o = finished('drift --format json');
    const report = JSON.parse(o.run.stdout) as { pagesChecked: number; issues: { page: string; citation: string; code: string; message: string }[] };
    for (const bad of o.repo.badCitations) {
      const issue = report.issues.find((i) => i.citation === bad.citation);
      assert.ok(issue, `${bad.citation} reported\n${o.run.stdout}`);
      assert.deepEqual([issue.page, issue.code], [o.repo.citationsPage, bad.code]);
      assert.ok(issue.message.includes(bad.citation), issue.message);
    }
    assert.ok(report.issues.some((i) => i.citation === o.repo.validCitation && i.code === 'unverified'), 'the valid citation is still checked');
    assert.equal(report.pagesChecked, o.repo.regularPages.length, 'only regular pages are checked: the FIFO and the link out are left out');
  });

  it('drift --stamp stamps the valid citation and no bad one', () => {
    const o = finished('drift --stamp');
    const page = fs.readFileSync(path.join(o.repo.root, o.repo.citationsPage!), 'utf8');
    if (o.run.code !== 2) assert.ok(page.includes(`"${o.repo.validCitation}": "sig:`), `the valid citation is stamped\n${page}`);
    for (const bad of o.repo.badCitations) assert.ok(!page.includes(`"${bad.citation}"`), `${bad.citation} has no anchor\n${page}`);
  });

  it('index rebuild leaves the FIFO page and the page linking out out of index.json', () => {
    const o = finished('index rebuild');
    const index = JSON.parse(fs.readFileSync(path.join(o.repo.root, '.wiki/index.json'), 'utf8')) as { pages: { slug: string }[] };
    const slugs = index.pages.map((p) => p.slug);
    assert.ok(slugs.includes('hostile-citations'), `regular pages are indexed: ${slugs.join(', ')}`);
    for (const slug of ['fifo-page', 'passwd-link']) assert.ok(!slugs.includes(slug), `${slug} is not in index.json`);
  });

  it('query --offline answers without the page linking out', () => {
    const o = finished('query --offline');
    assert.match(o.run.stdout, /offline answer/);
    assert.doesNotMatch(o.run.stdout, /passwd-link/);
  });

  it('ingest skips the FIFO and the link out, saying why, and sends the other file with at most 32 KB of SCHEMA.md', () => {
    for (const [name, skipped] of [['ingest a FIFO', 'src/fifo.ts'], ['ingest a link out', 'src/outside.ts']]) {
      const o = finished(name);
      assert.ok(output(o).split('\n').some((line) => line.includes(skipped) && /skipped/i.test(line)), `${name}: says it skipped ${skipped}\n${show(name, o)}`);
      assert.ok(o.requests.length > 0, `${name}: docs/notes.md still went to the model\n${show(name, o)}`);
      const sent = o.requests.flatMap((r) => [...JSON.stringify(r.body).matchAll(/<source path=\\"([^\\"]+)\\"/g)].map((m) => m[1]));
      assert.deepEqual([...new Set(sent)], ['docs/notes.md'], `${name}: only docs/notes.md is sent as a source`);
      for (const request of o.requests) {
        const body = JSON.stringify(request.body);
        assert.ok(!body.includes(o.repo.schemaTail), `${name}: the end of the 3 MB SCHEMA.md was sent`);
        assert.ok(body.length < 200 * 1024, `${name}: a ${Math.round(body.length / 1024)} KB request`);
      }
    }
  });

  it('index merge with a missing file: one line "cannot read", exit 2, OURS untouched', () => {
    const o = finished('index merge with a missing file');
    const lines = o.run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, show('index merge', o));
    assert.match(lines[0], /^repo-wiki: cannot read .*missing\.json: /);
    assert.equal(fs.readFileSync(path.join(o.scratch, 'ours.json'), 'utf8'), o.oursBefore);
  });

  it('index merge refuses an entry whose path no rebuild could produce, leaving OURS untouched', () => {
    const o = finished('index merge with an entry no rebuild could produce');
    assert.equal(fs.readFileSync(path.join(o.scratch, 'ours.json'), 'utf8'), o.oursBefore, show('index merge', o));
  });

  it('with .wiki/pages linking out: page-outside-wiki on .wiki/pages, no page read, nothing written into that folder', () => {
    for (const name of ['pages link out: drift --stamp', 'pages link out: index rebuild', 'pages link out: lint --fix']) {
      const o = finished(name);
      assert.deepEqual(snapshotOutside(o.repo.outsideDir), o.before, `${name} wrote into the outside pages folder`);
      assert.ok(names(o, '.wiki/pages', 'page-outside-wiki'), `${name} says .wiki/pages leads out\n${show(name, o)}`);
      assert.doesNotMatch(output(o), /outside-page|outside-stale/, `${name} read a page in the outside folder\n${show(name, o)}`);
      const index = fs.readFileSync(path.join(o.repo.root, '.wiki/index.json'), 'utf8');
      assert.doesNotMatch(index, /outside-page|outside-stale/, `${name}: no outside page in index.json`);
    }
  });
});
