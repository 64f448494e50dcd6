import { WikiError } from '../errors';
import { findSecret } from '../files/secretContent';
import { applyChangesLocked, type AppliedChanges } from '../ingest/apply';
import { preparePlan, type CitationResolver, type PageChange } from '../ingest/changes';
import { readPlan, type PlanProblem } from '../ingest/plan';
import type { Clock } from '../ports';
import type { Wiki } from '../wiki/wiki';
import { isAgentName, newProposalId, PROPOSAL_LIMITS, textHash, type Proposal, type ProposalBase, type ProposalInput } from './proposal';
import { fullError, type ProposalStore } from './store';

/** What proposing and reviewing read and write through; each front end builds it from its adapters. */
export interface ProposalContext {
  wiki: Wiki;
  store: ProposalStore;
  /** The drift engine: every citation in a proposal must resolve against the code as it is now. */
  resolver: CitationResolver;
  clock: Clock;
}

/** A proposal as a review shows it, recomputed against the wiki as it is now. */
export interface ProposalReview {
  proposal: Proposal;
  /** The page change for the diff review; empty when there are problems. */
  changes: PageChange[];
  /** Why it cannot be accepted as it is: the page changed since (path `base`), a citation no longer resolves. */
  problems: PlanProblem[];
}

/** The problem path of a page that changed since the proposal was made. */
export const BASE_CHANGED = 'base';

/**
 * Validates an agent's page exactly as an ingest plan is validated (slug, topic, sizes, links,
 * every citation resolved by the drift engine) and stores it as a pending proposal; writes no page.
 * `agent` is who proposes, named by the front end (`mcp:claude-code`).
 */
export async function proposePageChange(context: ProposalContext, input: ProposalInput, agent: string): Promise<{ proposal: Proposal } | { problems: PlanProblem[] }> {
  if (!isAgentName(agent)) throw new WikiError('invalid-proposal', `"${agent.slice(0, 80)}" is not an agent name such as "mcp:claude-code".`);
  const reason = input.reason.replace(/\s+/g, ' ').trim();
  if (!reason || reason.length > PROPOSAL_LIMITS.reasonChars) {
    return { problems: [{ path: 'reason', message: `must say why, in at most ${PROPOSAL_LIMITS.reasonChars} characters` }] };
  }
  const page = { slug: input.slug, title: input.title, topic: input.topic, summary: input.summary, body: input.body };
  const secrets = secretProblems({ ...page, reason });
  if (secrets.length) return { problems: secrets };
  if (await context.store.isFull()) return { problems: [{ path: '$', message: fullError().message }] };
  const prepared = await preparePage(context, page, agent);
  if (prepared.problems.length) return { problems: prepared.problems };
  const now = context.clock.now();
  const proposal: Proposal = { version: 1, id: newProposalId(now), agent, reason, created: now.toISOString(), page, base: await baseOf(prepared.changes[0].before) };
  try {
    await context.store.add(proposal);
  } catch (error) {
    // Full by now: other clients filled the last places while this one was being checked.
    if (error instanceof WikiError && error.code === 'proposals-full') return { problems: [{ path: '$', message: error.message }] };
    throw error;
  }
  return { proposal };
}

/** The change a review shows (the same diff review ingest uses), and why it cannot be accepted now, if it cannot. */
export async function proposalChanges(context: ProposalContext, proposal: Proposal): Promise<ProposalReview> {
  const [prepared, now] = await Promise.all([preparePage(context, proposal.page, proposal.agent), context.wiki.readPageText(proposal.page.slug)]);
  const problems = [...secretProblems(proposal.page), ...prepared.problems];
  if (!sameBase(proposal.base, await baseOf(now))) {
    const what = !proposal.base.existed ? 'was created' : now === undefined ? 'was deleted' : 'was edited';
    problems.unshift({ path: BASE_CHANGED, message: `.wiki/pages/${proposal.page.slug}.md ${what} after the proposal was made` });
  }
  return { proposal, changes: problems.length ? [] : prepared.changes, problems };
}

/**
 * Writes the proposed page as an ingest writes its pages (citations stamped, index rebuilt, one
 * log line naming the agent and the proposal), then deletes the proposal. Refuses, writing
 * nothing, when the page changed since the proposal or the proposal no longer validates.
 * The check and the write happen under the wiki's write lock: checked before it, a page renamed
 * or deleted meanwhile (its links moved by the rename) would leave this page linking to nothing.
 */
export function acceptProposal(context: ProposalContext, id: string): Promise<{ proposal: Proposal; applied: AppliedChanges }> {
  return context.wiki.exclusive(async (writes) => {
    const proposal = await context.store.get(id);
    if (!proposal) throw notFound(id);
    const review = await proposalChanges(context, proposal);
    if (review.problems.length) {
      const changed = review.problems.some((problem) => problem.path === BASE_CHANGED);
      throw new WikiError(
        changed ? 'page-changed' : 'plan-rejected',
        `The proposal ${id} was not applied, so nothing was written: ${review.problems.map((problem) => problem.message).join('; ')}.`,
        changed ? 'Reject it, and ask the agent to propose again against the current page.' : 'Reject it, or fix what it cites and try again.',
      );
    }
    const applied = await applyChangesLocked(context.wiki, writes, review.changes, { op: 'proposal', agent: proposal.agent, proposal: proposal.id, reason: proposal.reason });
    await context.store.remove(id);
    return { proposal, applied };
  });
}

/** Deletes the proposal (even one whose file is corrupt); writes no page. */
export async function rejectProposal(context: Pick<ProposalContext, 'store'>, id: string): Promise<void> {
  if (!(await context.store.remove(id))) throw notFound(id);
}

/** The one-page plan of a proposal through the ingest checks; problems name the proposal's fields. */
async function preparePage(context: ProposalContext, page: Proposal['page'], agent: string): Promise<{ changes: PageChange[]; problems: PlanProblem[] }> {
  const pages = await context.wiki.loadPages();
  const action = pages.some((existing) => existing.slug === page.slug && existing.readable) ? 'update' : 'create';
  const read = readPlan({ pages: [{ action, ...page }] });
  if ('problems' in read) return { changes: [], problems: read.problems.map(asInputProblem) };
  const today = context.clock.now().toISOString().slice(0, 10);
  const prepared = await preparePlan(read.plan, context.wiki, pages, context.resolver, { sources: [`agent:${agent}`], today });
  if (prepared.problems.length) return { changes: [], problems: prepared.problems.map(asInputProblem) };
  const change = prepared.changes.find((candidate) => candidate.slug === page.slug && (candidate.kind === 'create' || candidate.kind === 'update'));
  if (change) return { changes: [change], problems: [] };
  // Ingest would corroborate the page it duplicates; an agent is told to propose to that page instead.
  const duplicate = /\[\[([a-z0-9-]+)\]\]/.exec(prepared.notes.join(' '))?.[1];
  return { changes: [], problems: [{ path: 'slug', message: `the wiki already has this knowledge as [[${duplicate}]]; propose a change to the page "${duplicate}" instead of a new page` }] };
}

/**
 * A problem per field that holds something shaped like a credential (an API key, a token, a private
 * key): a proposal is stored in the workspace and, accepted, becomes a page committed with the repo.
 * Only the first characters are repeated, never the secret.
 */
function secretProblems(fields: Partial<Record<'title' | 'topic' | 'summary' | 'body' | 'reason', string>>): PlanProblem[] {
  const problems: PlanProblem[] = [];
  for (const [field, text] of Object.entries(fields)) {
    const secret = text === undefined ? undefined : findSecret(text);
    if (secret) {
      problems.push({ path: field, message: `holds what looks like ${secret.what} ("${secret.sample}"); a proposal is stored in the workspace and becomes a page committed with the code, so it may not hold secrets: leave it out, or write a placeholder such as <API key>` });
    }
  }
  return problems;
}

/** `pages[0].title` → `title`: the proposal's own field names. Citations are found in the body. */
function asInputProblem(problem: PlanProblem): PlanProblem {
  const field = problem.path.replace(/^pages\[[^\]]*\]\.?/, '');
  return { path: field === 'citations' ? 'body' : field || '$', message: problem.message };
}

async function baseOf(text: string | undefined): Promise<ProposalBase> {
  return text === undefined ? { existed: false } : { existed: true, sha256: await textHash(text) };
}

function sameBase(a: ProposalBase, b: ProposalBase): boolean {
  return a.existed === b.existed && a.sha256 === b.sha256;
}

function notFound(id: string): WikiError {
  return new WikiError('proposal-not-found', `There is no pending proposal "${id.slice(0, 80)}".`, 'List them with "repo-wiki proposals list".');
}
