export { isAgentName, isProposalId, PROPOSAL_LIMITS, type Proposal, type ProposalBase, type ProposalInput } from './proposal';
export { acceptProposal, BASE_CHANGED, proposalChanges, proposePageChange, rejectProposal, type ProposalContext, type ProposalReview } from './review';
export { ProposalStore, type ProposalList, type UnreadableProposal } from './store';
