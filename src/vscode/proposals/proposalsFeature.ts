import * as vscode from 'vscode';
import { acceptProposal, proposalChanges, rejectProposal, type Proposal } from '../../core/proposals';
import { proposePageChangeTool } from '../../core/tools/proposePageChange';
import type { Wiki } from '../../core/wiki/wiki';
import { runCancellable, textResult } from '../agents/languageModelTools';
import { chooseChanges, reportApplied } from '../ingest/planReview';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';

/** The agent name of proposals made through VS Code's language model tools (agent mode, other extensions). */
export const VSCODE_AGENT = 'vscode:agent';

/** Where a review command finds its proposal: a Pages view node, or a root and id (tests, links). */
export interface ProposalRef {
  wiki?: Wiki;
  root?: string;
  proposal?: Proposal;
  id?: string;
  /** Skip the confirmation (tests, and callers that already asked). */
  confirmed?: boolean;
}

/**
 * Agents propose, people decide: the `propose_page_change` language model tool (with a
 * confirmation), and the review of a proposal in the same diff review ingest uses. Accepting
 * writes and logs like an ingest that names the agent; rejecting deletes the proposal.
 */
export const proposalsFeature = {
  activate(context: vscode.ExtensionContext, services: Services): void {
    context.subscriptions.push(
      vscode.lm.registerTool('propose_page_change', new ProposePageChangeTool(services)),
      vscode.commands.registerCommand('repoWiki.reviewProposal', (ref?: ProposalRef) => reviewProposal(services, ref)),
      vscode.commands.registerCommand('repoWiki.rejectProposal', (ref?: ProposalRef) => rejectWithConfirmation(services, ref)),
    );
  },
};

class ProposePageChangeTool implements vscode.LanguageModelTool<{ slug?: unknown; reason?: unknown }> {
  constructor(private readonly services: Services) {}

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<{ slug?: unknown; reason?: unknown }>): Promise<vscode.PreparedToolInvocation> {
    const slug = typeof options.input.slug === 'string' ? options.input.slug.slice(0, 80) : '(no slug)';
    const reason = typeof options.input.reason === 'string' ? options.input.reason.slice(0, 300) : '';
    const message = new vscode.MarkdownString();
    message.appendText(`The agent proposes a change to the wiki page "${slug}". It is stored for review in the Pages view; nothing is written to the wiki until you accept it there.`);
    if (reason) message.appendText(`\n\nWhy: ${reason}`);
    return { invocationMessage: `Proposing a change to the wiki page ${slug}`, confirmationMessages: { title: 'Propose a wiki page change?', message } };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    if (!vscode.workspace.isTrusted) return textResult('Error: this workspace is in Restricted Mode, so Repo Wiki stores no proposals. Ask the user to trust the workspace.');
    const wiki = await this.services.wikis.preferred();
    if (!wiki) return textResult('Error: this workspace has no Repo Wiki yet (no .wiki/ folder).');
    const { ok, result } = await runCancellable(proposePageChangeTool(this.services.proposals.context(wiki), VSCODE_AGENT), options.input, token);
    if (ok) this.services.proposals.notifyChanged();
    return result;
  }
}

async function resolve(services: Services, ref: ProposalRef | undefined): Promise<{ wiki: Wiki; proposal: Proposal } | undefined> {
  const wiki = ref?.wiki ?? (ref?.root ? (await services.wikis.existing()).find((candidate) => candidate.root === ref.root) : await services.wikis.preferred());
  if (!wiki) return undefined;
  const proposal = ref?.proposal ?? (ref?.id ? await services.proposals.context(wiki).store.get(ref.id) : await pickProposal(services, wiki));
  return proposal && { wiki, proposal };
}

async function pickProposal(services: Services, wiki: Wiki): Promise<Proposal | undefined> {
  const { proposals } = await services.proposals.list(wiki);
  if (!proposals.length) {
    void vscode.window.showInformationMessage('Repo Wiki: no proposals to review.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(proposals.map((proposal) => ({ label: proposal.page.title, description: `${proposal.page.slug} · ${proposal.agent}`, detail: proposal.reason, proposal })), { title: 'Repo Wiki: review a proposal' });
  return picked?.proposal;
}

/** Shows the proposed page against the page on disk; Enter accepts it, Escape leaves it pending. */
async function reviewProposal(services: Services, ref: ProposalRef | undefined): Promise<{ accepted: boolean } | undefined> {
  if (!ensureTrusted('Reviewing a proposal')) return undefined;
  try {
    const found = await resolve(services, ref);
    if (!found) return undefined;
    const { wiki, proposal } = found;
    const context = services.proposals.context(wiki);
    const review = await proposalChanges(context, proposal);
    if (review.problems.length) {
      const reject = 'Reject proposal';
      const choice = await vscode.window.showWarningMessage(
        `Repo Wiki: the proposal from ${proposal.agent} for [[${proposal.page.slug}]] cannot be accepted as it is: ${review.problems.map((problem) => problem.message).join('; ')}.`,
        reject,
      );
      if (choice === reject) await rejectProposal(context, proposal.id).then(() => services.proposals.notifyChanged());
      return { accepted: false };
    }
    const title = `Proposal from ${proposal.agent}`;
    services.output.info(`${title} for [[${proposal.page.slug}]]: ${proposal.reason}`);
    const kept = await chooseChanges(wiki, review.changes, title);
    if (!kept?.length) {
      void vscode.window.showInformationMessage(`Repo Wiki: the proposal for [[${proposal.page.slug}]] is still pending. Reject it from the Pages view to delete it.`);
      return { accepted: false };
    }
    const { applied } = await acceptProposal(context, proposal.id);
    services.proposals.notifyChanged();
    services.wikis.notifyChanged(wiki);
    reportApplied(services, wiki, title, applied, review.changes);
    return { accepted: true };
  } catch (error) {
    showError(services.output, 'Reviewing the proposal', error);
    return undefined;
  }
}

async function rejectWithConfirmation(services: Services, ref: ProposalRef | undefined): Promise<boolean> {
  if (!ensureTrusted('Rejecting a proposal')) return false;
  try {
    const found = await resolve(services, ref);
    if (!found) return false;
    const { wiki, proposal } = found;
    const reject = 'Reject';
    const choice = ref?.confirmed
      ? reject
      : await vscode.window.showWarningMessage(`Reject the proposal from ${proposal.agent} for [[${proposal.page.slug}]]? It is deleted; the wiki is unchanged.`, { modal: true }, reject);
    if (choice !== reject) return false;
    await rejectProposal(services.proposals.context(wiki), proposal.id);
    services.proposals.notifyChanged();
    services.output.info(`Rejected the proposal ${proposal.id} from ${proposal.agent} for [[${proposal.page.slug}]].`);
    return true;
  } catch (error) {
    showError(services.output, 'Rejecting the proposal', error);
    return false;
  }
}
