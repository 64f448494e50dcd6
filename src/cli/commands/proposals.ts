import type { LocalCore } from '../../adapters/localCore';
import type { Proposal } from '../../core/proposals';
import type { CliCommand } from '../command';
import { usageLine } from '../help';
import type { Io } from '../io';

/** `repo-wiki proposals`: see `proposalsCommand`. */
export const proposals: CliCommand = {
  name: 'proposals',
  summary: 'the page changes agents proposed, waiting for review',
  description: 'list (the default) lists them; show prints one: a new page whole, an update as a unified diff against the page as it is now; accept writes it as an ingest does; reject deletes it.',
  usage: 'list | show ID | accept ID | reject ID',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [],
  run: async ({ positionals, format, core }, io) => proposalsCommand(await core(), positionals, format as 'text' | 'json', io),
};

/**
 * `repo-wiki proposals …`: the pages agents proposed, waiting in .wiki/.cache/proposals/. `show`
 * prints a new page as accepting would write it, and an update as a diff against the page now; `accept` writes it as an ingest does; `reject`
 * deletes the proposal. Exit 0 on success, 2 on a usage error; a refusal throws its WikiError.
 */
export async function proposalsCommand(core: LocalCore, args: readonly string[], format: 'text' | 'json', io: Io): Promise<number> {
  const [action = 'list', id, ...rest] = args;
  if (action === 'list' && id === undefined) return list(core, format, io);
  if (!['show', 'accept', 'reject'].includes(action) || id === undefined || rest.length) {
    io.err(usageLine(proposals));
    return 2;
  }
  const { acceptProposal, rejectProposal } = await import('../../core/proposals');
  const context = core.proposals;
  if (action === 'reject') {
    await rejectProposal(context, id);
    if (format === 'json') io.out(JSON.stringify({ id, rejected: true }));
    else io.out(`Rejected ${id}; nothing was written to the wiki.`);
    return 0;
  }
  if (action === 'accept') {
    const { proposal, applied } = await acceptProposal(context, id);
    if (format === 'json') io.out(JSON.stringify({ id, agent: proposal.agent, applied }));
    else io.out(`Accepted ${id} from ${proposal.agent}: ${applied.created.length ? 'created' : 'updated'} .wiki/pages/${proposal.page.slug}.md.`);
    return 0;
  }
  return show(core, id, format, io);
}

async function list(core: LocalCore, format: 'text' | 'json', io: Io): Promise<number> {
  const { proposals, unreadable, unread } = await core.proposals.store.list();
  if (format === 'json') {
    io.out(JSON.stringify({ proposals, unreadable, unread }, null, 2));
    return 0;
  }
  for (const proposal of proposals) io.out(`${proposal.id}  ${kind(proposal).padEnd(6)} .wiki/pages/${proposal.page.slug}.md  by ${proposal.agent}\n    ${proposal.reason}`);
  for (const { id, problem } of unreadable) io.err(`unreadable .wiki/.cache/proposals/${id}.json: ${problem}`);
  if (unread) io.err(`${unread} more file(s) in .wiki/.cache/proposals/ were not read.`);
  if (!proposals.length) io.out('No proposals are waiting for review.');
  return 0;
}

async function show(core: LocalCore, id: string, format: 'text' | 'json', io: Io): Promise<number> {
  const proposal = await core.proposals.store.get(id);
  if (!proposal) {
    io.err(`There is no pending proposal "${id}".`);
    return 2;
  }
  const { proposalChanges } = await import('../../core/proposals');
  const review = await proposalChanges(core.proposals, proposal);
  if (format === 'json') {
    const changes = review.changes.map(({ slug, kind: change, title, detail, before, after }) => ({ slug, kind: change, title, detail, before, after }));
    io.out(JSON.stringify({ proposal, changes, problems: review.problems }, null, 2));
    return 0;
  }
  io.out(`${proposal.id}  ${kind(proposal)} .wiki/pages/${proposal.page.slug}.md  by ${proposal.agent} at ${proposal.created}\nreason: ${proposal.reason}`);
  for (const problem of review.problems) io.err(`cannot be accepted: ${problem.path}: ${problem.message}`);
  const { boundedPatchText } = await import('../../core/text/boundedDiff');
  for (const change of review.changes) {
    const file = `.wiki/pages/${change.slug}.md`;
    // An update is told as what it changes, against the page as it is now; a new page whole.
    if (change.before === undefined) io.out(`--- ${file}, new, as accepting writes it ---\n${change.after}`);
    else io.out(boundedPatchText(`a/${file}`, `b/${file}`, change.before, change.after, 'now', 'as accepting writes it').trimEnd());
  }
  return 0;
}

function kind(proposal: Proposal): string {
  return proposal.base.existed ? 'update' : 'create';
}
