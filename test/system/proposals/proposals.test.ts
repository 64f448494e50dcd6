import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openLocalCore, type LocalCore } from '../../../src/adapters/localCore';
import { proposalsCommand } from '../../../src/cli/commands/proposals';
import { PLAN_LIMITS } from '../../../src/core/ingest/plan';
import { parseLog } from '../../../src/core/wiki/log';
import { acceptProposal, PROPOSAL_LIMITS, proposalChanges, proposePageChange, rejectProposal, type Proposal, type ProposalInput } from '../../../src/core/proposals';
import { parsePage } from '../../../src/core/pages/page';
import { proposePageChangeTool } from '../../../src/core/tools';
import { renamePage } from '../../../src/core/authoring';
import { fixedClock } from '../../support/fakes';

const DEMO = path.resolve(__dirname, '../../../../demo');
const AGENT = 'mcp:claude-code';

const NEW_PAGE: ProposalInput = {
  slug: 'completing-todos',
  title: 'Completing todos',
  topic: 'patterns',
  summary: 'What completing a todo does, and where.',
  body: '# Completing todos\n\n`src/todos.ts:TodoStore.complete` marks a todo done. See [[request-pipeline]].\n',
  reason: 'Learned while fixing the completion bug: the store, not the router, marks todos done.',
};

/** A fresh copy of demo/ (with its wiki) and its core, as the CLI and the MCP server build it. */
function workspace(): { root: string; core: LocalCore; cleanup(): void } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-proposals-'));
  const root = path.join(base, 'ws');
  fs.cpSync(DEMO, root, { recursive: true });
  return { root, core: openLocalCore(root), cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

function captured() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (text: string) => out.push(text), err: (text: string) => err.push(text) } };
}

async function propose(core: LocalCore, input: Partial<ProposalInput> = {}): Promise<Proposal> {
  const result = await proposePageChange(core.proposals, { ...NEW_PAGE, ...input }, AGENT);
  assert.ok('proposal' in result, JSON.stringify(result));
  return result.proposal;
}

describe('proposals: agents propose, people decide', function () {
  this.timeout(20000);
  let box: ReturnType<typeof workspace>;
  let proposalsDir: string;
  const at = (rel: string) => path.join(box.root, rel);
  const pagesNow = () => fs.readdirSync(at('.wiki/pages')).sort();

  beforeEach(() => {
    box = workspace();
    proposalsDir = at('.wiki/.cache/proposals');
  });
  afterEach(() => box.cleanup());

  it('stores a valid proposal under .wiki/.cache/proposals, not in pages/', async () => {
    const pagesBefore = pagesNow();
    const indexBefore = fs.readFileSync(at('.wiki/index.json'), 'utf8');
    const proposal = await propose(box.core);
    assert.match(proposal.id, /^\d{8}T\d{9}Z-[0-9a-f]{8}$/);
    assert.deepEqual(fs.readdirSync(proposalsDir), [`${proposal.id}.json`]);
    const stored = JSON.parse(fs.readFileSync(path.join(proposalsDir, `${proposal.id}.json`), 'utf8'));
    assert.equal(stored.agent, AGENT);
    assert.equal(stored.reason, NEW_PAGE.reason);
    assert.deepEqual(stored.base, { existed: false });
    assert.deepEqual(pagesNow(), pagesBefore);
    assert.equal(fs.readFileSync(at('.wiki/index.json'), 'utf8'), indexBefore);
  });

  it('refuses an invented citation, a bad slug and an oversized body with problems, storing nothing', async () => {
    const cases: [Partial<ProposalInput>, RegExp][] = [
      [{ body: '# Completing todos\n\n`src/todos.ts:TodoStore.finishAll` does it all.\n' }, /body: .*TodoStore\.finishAll.*does not resolve/],
      [{ slug: 'Bad Slug!' }, /slug: must be a slug/],
      [{ body: `# Big\n\n${'word '.repeat(PLAN_LIMITS.bodyBytes / 5 + 10)}\n` }, /body: is larger than 64 KB/],
      [{ body: '# Completing todos\n\nSee [[no-such-page]].\n' }, /body: links to \[\[no-such-page\]\]/],
      [{ reason: '  ' }, /reason: must say why/],
    ];
    for (const [input, expected] of cases) {
      const result = await proposePageChange(box.core.proposals, { ...NEW_PAGE, ...input }, AGENT);
      assert.ok('problems' in result, `accepted ${JSON.stringify(input).slice(0, 80)}`);
      assert.match(result.problems.map((problem) => `${problem.path}: ${problem.message}`).join('\n'), expected);
    }
    assert.equal(fs.existsSync(proposalsDir), false);
  });

  it('lists proposals newest first with their agent, in text and JSON', async () => {
    const first = await propose(box.core);
    // An hour later, so the order does not rest on two proposals falling in different milliseconds.
    const later = { ...box.core.proposals, clock: fixedClock(new Date(Date.now() + 3600_000).toISOString()) };
    const second = await proposePageChange(later, { ...NEW_PAGE, slug: 'todo-errors', title: 'Todo errors', summary: 'Errors of the todo store.', body: '# Todo errors\n\n`src/errors.ts` holds them.\n' }, 'vscode:copilot');
    assert.ok('proposal' in second);
    const { proposals } = await box.core.proposals.store.list();
    assert.deepEqual(proposals.map((p) => [p.id, p.agent]), [[second.proposal.id, 'vscode:copilot'], [first.id, AGENT]]);

    const text = captured();
    assert.equal(await proposalsCommand(box.core, ['list'], 'text', text.io), 0);
    assert.match(text.out.join('\n'), new RegExp(`${first.id}  create .wiki/pages/completing-todos.md  by mcp:claude-code`));
    const json = captured();
    assert.equal(await proposalsCommand(box.core, ['list'], 'json', json.io), 0);
    assert.deepEqual(JSON.parse(json.out.join('')).proposals.map((p: Proposal) => p.agent), ['vscode:copilot', AGENT]);
  });

  it('accept writes the page with citations stamped, rebuilds the index, logs the agent and removes the proposal', async () => {
    const proposal = await propose(box.core);
    const review = await proposalChanges(box.core.proposals, proposal);
    assert.deepEqual(review.problems, []);
    assert.deepEqual(review.changes.map((change) => [change.kind, change.slug]), [['create', 'completing-todos']]);

    const io = captured();
    assert.equal(await proposalsCommand(box.core, ['accept', proposal.id], 'text', io.io), 0);
    assert.match(io.out.join('\n'), /Accepted .* from mcp:claude-code: created \.wiki\/pages\/completing-todos\.md/);
    const page = parsePage('completing-todos.md', 'completing-todos', fs.readFileSync(at('.wiki/pages/completing-todos.md')));
    assert.match(String(page.frontmatter.anchors?.['src/todos.ts:TodoStore.complete']), /^sig:[0-9a-f]{8} body:[0-9a-f]{8}$/);
    assert.deepEqual(page.frontmatter.sources, [`agent:${AGENT}`]);
    assert.ok(JSON.parse(fs.readFileSync(at('.wiki/index.json'), 'utf8')).pages.some((p: { slug: string }) => p.slug === 'completing-todos'));
    const last = parseLog(fs.readFileSync(at('.wiki/log.jsonl'), 'utf8')).entries.at(-1)!;
    assert.equal(last.op, 'proposal');
    assert.equal(last.agent, AGENT);
    assert.equal(last.proposal, proposal.id);
    assert.deepEqual(last.created, ['completing-todos']);
    assert.deepEqual(fs.readdirSync(proposalsDir), []);
  });

  it('accept of a rewrite updates the existing page and keeps its history fields', async () => {
    const file = at('.wiki/pages/request-pipeline.md');
    const before = parsePage('request-pipeline.md', 'request-pipeline', fs.readFileSync(file));
    const proposal = await propose(box.core, { slug: 'request-pipeline', title: 'Request pipeline', summary: 'How a request flows.', body: '# Request pipeline\n\n`src/pipeline.ts:Pipeline.run` runs the middleware, then the router.\n' });
    assert.equal(proposal.base.existed, true);
    const { applied } = await acceptProposal(box.core.proposals, proposal.id);
    assert.deepEqual(applied.updated, ['request-pipeline']);
    const after = parsePage('request-pipeline.md', 'request-pipeline', fs.readFileSync(file));
    assert.equal(after.frontmatter.created, before.frontmatter.created);
    assert.deepEqual(after.frontmatter.sources, [...(before.frontmatter.sources ?? []), `agent:${AGENT}`]);
    assert.deepEqual(Object.keys(after.frontmatter.anchors ?? {}), ['src/pipeline.ts:Pipeline.run']);
  });

  it('show prints an update as a unified diff against the page now, and a new page whole', async () => {
    const current = fs.readFileSync(at('.wiki/pages/request-pipeline.md'), 'utf8');
    const update = await propose(box.core, { slug: 'request-pipeline', title: 'Request pipeline', summary: 'How a request flows.', body: '# Request pipeline\n\n`src/pipeline.ts:Pipeline.run` runs the middleware, then the router.\n' });
    const shown = captured();
    assert.equal(await proposalsCommand(box.core, ['show', update.id], 'text', shown.io), 0);
    const text = shown.out.join('\n');
    assert.match(text, /^--- a\/\.wiki\/pages\/request-pipeline\.md\tnow\n\+\+\+ b\/\.wiki\/pages\/request-pipeline\.md\tas accepting writes it\n@@ /m);
    assert.match(text, /^\+`src\/pipeline\.ts:Pipeline\.run` runs the middleware, then the router\.$/m);
    const unchangedLine = current.split('\n').find((line) => line.startsWith('created:'))!;
    assert.ok(!text.includes(`+${unchangedLine}`) && !text.includes(`-${unchangedLine}`), 'an unchanged line is context, not a change');
    assert.ok(text.length < current.length + 2000, 'not the whole page and then some');
    const created = await propose(box.core);
    const whole = captured();
    assert.equal(await proposalsCommand(box.core, ['show', created.id], 'text', whole.io), 0);
    assert.match(whole.out.join('\n'), /--- \.wiki\/pages\/completing-todos\.md, new, as accepting writes it ---\n---\ntitle:/);
  });

  it('refuses a new page that duplicates one the wiki has, naming that page', async () => {
    const result = await proposePageChange(box.core.proposals, { ...NEW_PAGE, slug: 'pipeline-again', title: 'Request pipeline' }, AGENT);
    assert.ok('problems' in result);
    assert.match(result.problems.map((p) => p.message).join('\n'), /request-pipeline/);
    assert.equal(fs.existsSync(proposalsDir), false);
  });

  it('accept refuses, writing nothing, when the page was edited since the proposal', async () => {
    const file = at('.wiki/pages/request-pipeline.md');
    const current = fs.readFileSync(file, 'utf8');
    const body = current.slice(current.indexOf('\n---\n', 4) + 5);
    const proposal = await propose(box.core, { slug: 'request-pipeline', title: 'Request pipeline', summary: 'How a request flows through the pipeline.', body: body.replace('Every request', 'Each request') });
    assert.equal(proposal.base.existed, true);
    const edited = current.replace('Every request', 'Every single request');
    fs.writeFileSync(file, edited);
    const log = fs.readFileSync(at('.wiki/log.jsonl'), 'utf8');

    const review = await proposalChanges(box.core.proposals, proposal);
    assert.match(review.problems[0].message, /request-pipeline\.md was edited after the proposal was made/);
    await assert.rejects(acceptProposal(box.core.proposals, proposal.id), (error: Error & { code?: string }) => error.code === 'page-changed' && /nothing was written/.test(error.message));
    assert.equal(fs.readFileSync(file, 'utf8'), edited);
    assert.equal(fs.readFileSync(at('.wiki/log.jsonl'), 'utf8'), log);
    assert.ok(fs.existsSync(path.join(proposalsDir, `${proposal.id}.json`)), 'the proposal stays for the person to reject');
  });

  it('reject deletes the proposal and writes no page', async () => {
    const proposal = await propose(box.core);
    const pagesBefore = pagesNow();
    const io = captured();
    assert.equal(await proposalsCommand(box.core, ['reject', proposal.id], 'json', io.io), 0);
    assert.deepEqual(JSON.parse(io.out.join('')), { id: proposal.id, rejected: true });
    assert.deepEqual(fs.readdirSync(proposalsDir), []);
    assert.deepEqual(pagesNow(), pagesBefore);
    await assert.rejects(rejectProposal(box.core.proposals, proposal.id), /no pending proposal/);
    const usage = captured();
    assert.equal(await proposalsCommand(box.core, ['accept'], 'text', usage.io), 2);
    assert.match(usage.err.join('\n'), /Usage: repo-wiki proposals list/);
  });

  it('reports a corrupt proposal file and lists the rest', async () => {
    const proposal = await propose(box.core);
    const corrupt = '20261124T000000000Z-00000000';
    fs.writeFileSync(path.join(proposalsDir, `${corrupt}.json`), '{"version": 1, "id": "x", "page": {"slug": "../../etc"}}');
    fs.writeFileSync(path.join(proposalsDir, 'not-an-id.json'), '{}');
    const list = await box.core.proposals.store.list();
    assert.deepEqual(list.proposals.map((p) => p.id), [proposal.id]);
    assert.deepEqual(list.unreadable.map((u) => u.id).sort(), [corrupt, 'not-an-id']);
    const io = captured();
    assert.equal(await proposalsCommand(box.core, ['list'], 'text', io.io), 0);
    assert.match(io.err.join('\n'), new RegExp(`unreadable .wiki/.cache/proposals/${corrupt}.json: not a proposal`));
    await assert.rejects(acceptProposal(box.core.proposals, corrupt), /cannot be read/);
    await rejectProposal(box.core.proposals, corrupt);
    assert.equal(fs.existsSync(path.join(proposalsDir, `${corrupt}.json`)), false);
  });

  it('refuses a proposal file that is a symbolic link out or a FIFO, without hanging', async () => {
    const proposal = await propose(box.core);
    const outside = path.join(path.dirname(box.root), 'outside.json');
    fs.copyFileSync(path.join(proposalsDir, `${proposal.id}.json`), outside);
    const linkId = '20261124T000000001Z-0000000a';
    const fifoId = '20261124T000000002Z-0000000b';
    fs.symlinkSync(outside, path.join(proposalsDir, `${linkId}.json`));
    execFileSync('mkfifo', [path.join(proposalsDir, `${fifoId}.json`)]);
    const list = await box.core.proposals.store.list();
    assert.deepEqual(list.proposals.map((p) => p.id), [proposal.id]);
    const problems = new Map(list.unreadable.map((u) => [u.id, u.problem]));
    assert.match(problems.get(linkId)!, /symbolic link that leads out/);
    assert.match(problems.get(fifoId)!, /FIFO/);
    await rejectProposal(box.core.proposals, linkId);
    await rejectProposal(box.core.proposals, fifoId);
    assert.ok(fs.existsSync(outside), 'rejecting a link deletes the link, not what it points to');
  });

  it('the propose_page_change tool: an error result for bad input, a success naming the id', async () => {
    const tool = proposePageChangeTool(box.core.proposals, AGENT);
    assert.equal(tool.name, 'propose_page_change');
    const missing = await tool.run({ slug: 'x' });
    assert.equal(missing.ok, false);
    assert.match(missing.text, /title: required/);
    const invented = await tool.run({ ...NEW_PAGE, body: '# Completing todos\n\n`src/nowhere.ts:Ghost` does it.\n' });
    assert.equal(invented.ok, false);
    assert.match(invented.text, /body: src\/nowhere\.ts:Ghost does not resolve/);
    assert.equal(fs.existsSync(proposalsDir), false);

    const stored = await tool.run(NEW_PAGE);
    assert.equal(stored.ok, true, stored.text);
    const [file] = fs.readdirSync(proposalsDir);
    const id = file.slice(0, -'.json'.length);
    assert.match(stored.text, new RegExp(`Proposal ${id} is stored: a person will review it`));
    assert.equal(tool.label(NEW_PAGE), 'Proposed a change to the page completing-todos');
  });

  // Red-team pass, issue 36: an accept racing a rename left a link to nothing in 6 of 12 races.
  it('accept checks and writes under the write lock: racing a rename of a page it links to never leaves a broken link', async function () {
    this.timeout(120_000);
    const outcomes = { accepted: 0, refused: 0 };
    for (let round = 0; round < 12; round++) {
      const ws = workspace();
      try {
        const { wiki, proposals } = ws.core;
        const brokenLinks = async () => {
          const pages = await wiki.loadPages();
          const slugs = new Set(pages.map((page) => page.slug));
          return pages.flatMap((page) => page.links.filter((link) => !slugs.has(link.target)).map((link) => `${page.slug} → [[${link.target}]]`));
        };
        const before = await brokenLinks(); // the demo keeps one on purpose, for lint to find
        const proposal = await propose(ws.core);
        // The accept first or the rename first, a few milliseconds apart: both orders, and the moments between.
        const delay = (round % 4) * 3;
        const accept = new Promise((resolve) => setTimeout(resolve, round % 2 ? delay : 0)).then(() => acceptProposal(proposals, proposal.id));
        const rename = new Promise((resolve) => setTimeout(resolve, round % 2 ? 0 : delay)).then(() => renamePage(wiki, 'request-pipeline', 'request-flow'));
        const [accepted, renamed] = await Promise.allSettled([accept, rename]);
        assert.equal(renamed.status, 'fulfilled', String((renamed as PromiseRejectedResult).reason));
        if (accepted.status === 'fulfilled') outcomes.accepted++;
        else {
          assert.match(String(accepted.reason), /links to \[\[request-pipeline\]\]/, 'refused because its link now leads nowhere, writing nothing');
          assert.equal(fs.existsSync(path.join(ws.root, '.wiki/pages/completing-todos.md')), false);
          outcomes.refused++;
        }
        assert.deepEqual(await brokenLinks(), before, `round ${round}`);
      } finally {
        ws.cleanup();
      }
    }
    assert.equal(outcomes.accepted + outcomes.refused, 12);
  });

  // Red-team pass, issue 36: 8 clients at once stored 467 proposals past the cap of 200.
  it('holds the cap on pending proposals when many clients propose at once', async function () {
    this.timeout(120_000);
    fs.mkdirSync(proposalsDir, { recursive: true });
    const room = 10;
    for (let i = 0; i < PROPOSAL_LIMITS.pending - room; i++) fs.writeFileSync(path.join(proposalsDir, `20261124T000000000Z-${i.toString(16).padStart(8, '0')}.json`), '{}');
    const clients = Array.from({ length: 8 }, () => openLocalCore(box.root));
    const results = await Promise.all(clients.flatMap((client) => Array.from({ length: 5 }, () => proposePageChange(client.proposals, NEW_PAGE, AGENT))));
    const stored = results.filter((result) => 'proposal' in result);
    const refused = results.filter((result) => 'problems' in result);
    assert.equal(stored.length, room);
    assert.equal(refused.length, results.length - room);
    for (const result of refused) assert.ok('problems' in result && /200 proposals are already waiting/.test(result.problems[0].message), JSON.stringify(result));
    assert.equal(fs.readdirSync(proposalsDir).filter((name) => name.endsWith('.json')).length, PROPOSAL_LIMITS.pending);
  });

  // Red-team pass, issue 36: propose_page_change stored bodies holding sk-ant-… and AKIA… keys.
  it('refuses a proposal whose page or reason holds a credential, naming the field and not repeating the secret', async () => {
    const anthropic = `sk-ant-api03-${'x1Y2z3'.repeat(15)}abcAA`;
    const aws = 'AKIAZ2ABCDEFGHIJKLMN';
    const cases: [Partial<ProposalInput>, RegExp][] = [
      [{ body: `# Completing todos\n\nCall the API with \`${anthropic}\`.\n` }, /^body: holds what looks like an Anthropic API key \("sk-ant-a…"\)/],
      [{ body: `# Completing todos\n\nexport AWS_ACCESS_KEY_ID=${aws}\n` }, /^body: holds what looks like an AWS access key id/],
      [{ summary: `Token ghp_${'a'.repeat(36)} works.` }, /^summary: holds what looks like a GitHub token/],
      [{ reason: `Found the key -----BEGIN RSA PRIVATE KEY----- in a file.` }, /^reason: holds what looks like a private key/],
    ];
    for (const [input, expected] of cases) {
      const result = await proposePageChange(box.core.proposals, { ...NEW_PAGE, ...input }, AGENT);
      assert.ok('problems' in result, `stored ${JSON.stringify(input).slice(0, 80)}`);
      const text = result.problems.map((problem) => `${problem.path}: ${problem.message}`).join('\n');
      assert.match(text, expected);
      assert.doesNotMatch(text, new RegExp(`${anthropic}|${aws}`));
    }
    assert.equal(fs.existsSync(proposalsDir), false, 'nothing stored');
    // The tool says it to the agent, as an error result.
    const tool = await proposePageChangeTool(box.core.proposals, AGENT).run({ ...NEW_PAGE, body: `# Completing todos\n\nKey: ${anthropic}\n` });
    assert.equal(tool.ok, false);
    assert.match(tool.text, /Anthropic API key/);
    // Ordinary text about keys, and placeholders, are fine.
    await propose(box.core, { body: '# Completing todos\n\nSet `ANTHROPIC_API_KEY` (it starts with sk-ant-…; AWS ids start with AKIA). `src/todos.ts:TodoStore.complete` marks a todo done.\n' });
    // A proposal file that holds one (written before this check, or by hand) is not accepted.
    const stored = await propose(box.core);
    const file = path.join(proposalsDir, `${stored.id}.json`);
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    data.page.body += `\nKey: ${anthropic}\n`;
    fs.writeFileSync(file, JSON.stringify(data));
    await assert.rejects(acceptProposal(box.core.proposals, stored.id), /body: |Anthropic API key/);
    assert.equal(fs.existsSync(at('.wiki/pages/completing-todos.md')), false);
  });

  it('refuses past the cap on pending proposals', async () => {
    fs.mkdirSync(proposalsDir, { recursive: true });
    for (let i = 0; i < PROPOSAL_LIMITS.pending; i++) fs.writeFileSync(path.join(proposalsDir, `20261124T000000000Z-${i.toString(16).padStart(8, '0')}.json`), '{}');
    const result = await proposePageChange(box.core.proposals, NEW_PAGE, AGENT);
    assert.ok('problems' in result);
    assert.match(result.problems[0].message, /200 proposals are already waiting/);
  });
});
