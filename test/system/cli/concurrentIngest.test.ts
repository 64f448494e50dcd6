import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import matter from 'gray-matter';
import { runCliProcess, type CliRun } from '../../support/cliProcess';

// Two real `repo-wiki ingest --yes` processes against one workspace at the same time: every page a
// process reports as created must be in the index, no page may be overwritten behind a process's
// back, and the log must stay one whole JSON line per apply.

const DEMO = path.resolve(__dirname, '../../../../demo');
const { startMockAnthropic } = require(path.resolve(__dirname, '../../../../test/harness/mockAnthropic.cjs'));
const KEY = 'sk-ant-concurrent-ingest-key';
const ROUNDS = 50;
// The model sees the source text; these markers tell the mock which process is asking.
const ALPHA = 'ALPHA-SOURCE-MARKER';
const BETA = 'BETA-SOURCE-MARKER';

type Run = CliRun;
type Side = 'alpha' | 'beta';

const cli = runCliProcess;

function plan(slug: string, title: string, summary: string, body: string): string {
  return JSON.stringify({ pages: [{ action: 'create', slug, title, topic: 'other', summary, tags: ['notes'], body, citations: [] }], corroborate: [], links: [] });
}

const SCENARIOS = {
  different: {
    alpha: { slug: 'alpha-notes', reply: plan('alpha-notes', 'Alpha notes', 'What the alpha document says.', '# Alpha notes\n\nThe alpha document lists quartz, amber and cobalt.\n') },
    beta: { slug: 'beta-notes', reply: plan('beta-notes', 'Beta notes', 'What the beta document says.', '# Beta notes\n\nThe beta document lists willow, cedar and maple.\n') },
  },
  same: {
    alpha: { slug: 'shared-notes', reply: plan('shared-notes', 'Shared notes', 'Shared notes as the alpha document tells it.', '# Shared notes\n\nWritten from the alpha document: quartz, amber and cobalt.\n') },
    beta: { slug: 'shared-notes', reply: plan('shared-notes', 'Shared notes', 'Shared notes as the beta document tells it.', '# Shared notes\n\nWritten from the beta document: willow, cedar and maple.\n') },
  },
} as const;
type Scenario = keyof typeof SCENARIOS;

/**
 * Resolves for everyone once `count` have arrived; after 60 s regardless, so a process that never
 * asks cannot hang the test. A round whose barrier timed out did not race (on a loaded machine one
 * process can start that much later): it is run again, not judged.
 */
function barrier(count: number): { arrive(): Promise<void>; timedOut: boolean } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const state = { timedOut: false, arrive };
  const timer = setTimeout(() => {
    state.timedOut = true;
    open();
  }, 60000);
  let arrived = 0;
  function arrive() {
    if (++arrived >= count) {
      clearTimeout(timer);
      open();
    }
    return opened;
  }
  return state;
}

function freshWorkspace(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-concurrent-'));
  fs.cpSync(DEMO, ws, { recursive: true });
  fs.mkdirSync(path.join(ws, 'docs'));
  fs.writeFileSync(path.join(ws, 'docs', 'a.md'), `# Alpha\n\n${ALPHA}: quartz, amber and cobalt.\n`);
  fs.writeFileSync(path.join(ws, 'docs', 'b.md'), `# Beta\n\n${BETA}: willow, cedar and maple.\n`);
  return ws;
}

const SOURCE: Record<Side, string> = { alpha: 'docs/a.md', beta: 'docs/b.md' };

/** The run printed the page's create line, exited 0 and said it applied one creation. */
function reportedCreated(run: Run, slug: string): boolean {
  return run.code === 0 && new RegExp(`^create\\s+\\.wiki/pages/${slug}\\.md`, 'm').test(run.stdout) && /Applied: 1 created/.test(run.stdout);
}

describe('two repo-wiki ingest processes at once', function () {
  // 50 rounds of two processes: about a minute each on a quiet machine; far more on a loaded one.
  this.timeout(900000);
  let mock: { url: string; close(): Promise<void> };
  let scenario: Scenario = 'different';
  // Set per round: both model replies leave the mock together, so both processes apply at the same moment.
  let gate: ReturnType<typeof barrier> | undefined;
  const env = () => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: mock.url });

  before(async () => {
    mock = await startMockAnthropic({
      validKey: KEY,
      defaultReply: async (body: { messages: unknown }) => {
        const side: Side = JSON.stringify(body.messages).includes(ALPHA) ? 'alpha' : 'beta';
        await gate?.arrive();
        return { text: SCENARIOS[scenario][side].reply };
      },
    });
  });
  after(async () => mock.close());

  /** What each side's process would write, from a --dry-run preview (the page text is the preview's `text`). */
  async function previews(): Promise<Record<Side, string>> {
    gate = undefined;
    const ws = freshWorkspace();
    try {
      const preview = async (side: Side) => {
        const run = await cli(['ingest', SOURCE[side], '--workspace', ws, '--dry-run', '--format', 'json'], env());
        assert.equal(run.code, 0, run.stderr);
        const changes = JSON.parse(run.stdout).changes as { slug: string; kind: string; text: string }[];
        assert.deepEqual(changes.map((c) => [c.slug, c.kind]), [[SCENARIOS[scenario][side].slug, 'create']]);
        return changes[0].text;
      };
      const [alpha, beta] = await Promise.all([preview('alpha'), preview('beta')]);
      return { alpha, beta };
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  }

  /** Runs ROUNDS rounds of the scenario, checking each; returns how many rounds passed each check. */
  async function race(name: Scenario, checks: (ctx: Round) => Record<string, boolean>): Promise<{ passed: Record<string, number>; seconds: number }> {
    const started = Date.now();
    scenario = name;
    let expected = await previews();
    let day = new Date().toISOString().slice(0, 10);
    const passed: Record<string, number> = {};
    let notRaced = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // The previews carry today's date (UTC); renew them if the run crosses midnight.
      if (new Date().toISOString().slice(0, 10) !== day) {
        expected = await previews();
        day = new Date().toISOString().slice(0, 10);
      }
      const ws = freshWorkspace();
      try {
        const logBefore = fs.readFileSync(path.join(ws, '.wiki', 'log.jsonl'), 'utf8').split('\n').filter(Boolean).length;
        gate = barrier(2);
        // Spawned in the same tick: both start at the same moment.
        const [alpha, beta] = await Promise.all([
          cli(['ingest', SOURCE.alpha, '--workspace', ws, '--yes'], env()),
          cli(['ingest', SOURCE.beta, '--workspace', ws, '--yes'], env()),
        ]);
        if (gate.timedOut && notRaced++ < ROUNDS) {
          round--;
          continue;
        }
        const runs: Record<Side, Run> = { alpha, beta };
        const winners = (['alpha', 'beta'] as const).filter((side) => reportedCreated(runs[side], SCENARIOS[name][side].slug));
        // A missing or unreadable file fails its checks instead of ending the run, so the tallies stay whole.
        const read = (rel: string) => fs.existsSync(path.join(ws, rel)) ? fs.readFileSync(path.join(ws, rel), 'utf8') : undefined;
        let index: Round['index'] = { pages: [] };
        try {
          index = JSON.parse(read('.wiki/index.json') ?? '{"pages":[]}');
        } catch { /* left empty: every "in index" check fails */ }
        const logLines = (read('.wiki/log.jsonl') ?? '').split('\n').filter(Boolean);
        const pageText = (slug: string) => read(`.wiki/pages/${slug}.md`);
        const results = checks({ runs, winners, index, logLines, logBefore, expected, pageText });
        for (const [check, ok] of Object.entries(results)) passed[check] = (passed[check] ?? 0) + (ok ? 1 : 0);
      } finally {
        fs.rmSync(ws, { recursive: true, force: true });
      }
    }
    if (notRaced) console.log(`      ${notRaced} round(s) run again: one process asked the model over 60 s after the other`);
    return { passed, seconds: Math.round((Date.now() - started) / 1000) };
  }

  interface Round {
    runs: Record<Side, Run>;
    winners: Side[];
    index: { pages: { slug: string; summary: string }[] };
    logLines: string[];
    logBefore: number;
    expected: Record<Side, string>;
    pageText(slug: string): string | undefined;
  }

  /** Every line is a whole JSON object with ts and op: two appends never interleave. */
  function logParses(lines: readonly string[]): boolean {
    return lines.every((line) => {
      try {
        const entry = JSON.parse(line);
        return typeof entry.ts === 'string' && typeof entry.op === 'string';
      } catch {
        return false;
      }
    });
  }

  /** Exactly one new ingest line per successful apply, naming that apply's page. */
  function oneIngestLinePerApply(ctx: Round, name: Scenario): boolean {
    if (!logParses(ctx.logLines)) return false;
    const added = ctx.logLines.slice(ctx.logBefore).map((line) => JSON.parse(line)).filter((entry) => entry.op === 'ingest');
    const logged = added.map((entry) => JSON.stringify(entry.pages)).sort();
    const applied = ctx.winners.map((side) => JSON.stringify([SCENARIOS[name][side].slug])).sort();
    return JSON.stringify(logged) === JSON.stringify(applied);
  }

  function report(title: string, { passed, seconds }: { passed: Record<string, number>; seconds: number }): void {
    console.log(`      ${title} (${ROUNDS} rounds, ${seconds} s):`);
    for (const [check, count] of Object.entries(passed)) console.log(`        ${check}: ${count}/${ROUNDS}`);
    const failing = Object.entries(passed).filter(([, count]) => count !== ROUNDS).map(([check, count]) => `${check} held in ${count} of ${ROUNDS}`);
    assert.deepEqual(failing, [], `${title}: ${failing.join('; ')}`);
  }

  it('different pages: both are created as previewed, both are in index.json, the log has one whole ingest line per apply', async () => {
    const passed = await race('different', (ctx) => ({
      'both processes reported their page created': ctx.winners.length === 2,
      'both in index': ctx.winners.every((side) => ctx.index.pages.some((page) => page.slug === SCENARIOS.different[side].slug)),
      'each page on disk is what its process previewed': ctx.winners.every((side) => ctx.pageText(SCENARIOS.different[side].slug) === ctx.expected[side]),
      'log.jsonl has no torn line': logParses(ctx.logLines),
      'one ingest log line per successful apply': oneIngestLinePerApply(ctx, 'different'),
    }));
    report('different pages', passed);
  });

  it('same slug: exactly one process creates the page, the other exits non-zero saying nothing was written, the page is the winner\'s', async () => {
    const passed = await race('same', (ctx) => {
      const [winner] = ctx.winners;
      const loser = winner && (winner === 'alpha' ? 'beta' : 'alpha');
      const refusal = loser ? ctx.runs[loser] : undefined;
      const onDisk = ctx.pageText('shared-notes');
      const entry = ctx.index.pages.find((page) => page.slug === 'shared-notes');
      return {
        'exactly one process reported the page created': ctx.winners.length === 1,
        'the other exited non-zero saying the page was created after the preview and nothing was written': !!refusal && refusal.code !== 0
          && /shared-notes\.md was created after the preview/.test(refusal.stderr) && /nothing was written/.test(refusal.stderr),
        // With two winners, one of them was overwritten silently: the page can only be one of them.
        'the page on disk is byte-identical to what every reporting process previewed': ctx.winners.length > 0 && ctx.winners.every((side) => onDisk === ctx.expected[side]),
        'the reported page is in index': ctx.winners.length > 0 && !!entry,
        'its index entry has the summary of the page on disk': !!entry && onDisk !== undefined && matter(onDisk).data.summary === entry.summary,
        'log.jsonl has no torn line': logParses(ctx.logLines),
        'one ingest log line per successful apply': oneIngestLinePerApply(ctx, 'same'),
      };
    });
    report('same slug', passed);
  });
});
