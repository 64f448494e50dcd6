import * as z from 'zod/mini';
import { slugProblem } from '../pages/slug';

/** What an agent proposes: one page, new or a rewrite of an existing one, and why. */
export interface ProposalInput {
  slug: string;
  title: string;
  topic: string;
  summary: string;
  /** The whole markdown body of the page. */
  body: string;
  /** Why the page should change: what the agent learned, and from where. */
  reason: string;
}

/** A proposal waiting for a person's review, as kept in `.wiki/.cache/proposals/<id>.json`. */
export interface Proposal {
  version: 1;
  id: string;
  /** Who proposed it, as the front end names it: `mcp:claude-code`, `vscode:copilot`. */
  agent: string;
  reason: string;
  /** ISO time it was proposed. */
  created: string;
  page: Omit<ProposalInput, 'reason'>;
  /** The page as the proposal saw it; accepting refuses when the page changed since. */
  base: ProposalBase;
}

export interface ProposalBase {
  existed: boolean;
  /** SHA-256 (hex) of the page file's text then, when it existed. */
  sha256?: string;
}

/** Limits that keep agents from flooding local state or the review list. */
export const PROPOSAL_LIMITS = {
  /** Pending proposals at most; more are refused until people review some. */
  pending: 200,
  /** A proposal file's size: a 64 KB body with room for JSON escapes. */
  fileBytes: 512 * 1024,
  reasonChars: 1000,
  agentChars: 64,
} as const;

/** `20261124T105605123Z-1a2b3c4d`: sorts by time, and is safe as a file name everywhere. */
const PROPOSAL_ID = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;
const AGENT = new RegExp(`^[A-Za-z0-9][A-Za-z0-9:._-]{0,${PROPOSAL_LIMITS.agentChars - 1}}$`);

export function isProposalId(id: string): boolean {
  return PROPOSAL_ID.test(id);
}

export function isAgentName(agent: string): boolean {
  return AGENT.test(agent);
}

/** A new id from the time of the proposal and 32 random bits. */
export function newProposalId(now: Date): string {
  const random = globalThis.crypto.getRandomValues(new Uint8Array(4));
  return `${now.toISOString().replace(/[-:.]/g, '')}-${[...random].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** SHA-256 of a page file's text, the identity a proposal's base records. */
export async function textHash(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

const pageString = z.string().check(z.maxLength(PROPOSAL_LIMITS.fileBytes));

// A proposal file is untrusted input (a hand edit, a bad merge, another tool): its whole shape is checked.
const storedProposal = z.strictObject({
  version: z.literal(1),
  id: z.string().check(z.regex(PROPOSAL_ID)),
  agent: z.string().check(z.regex(AGENT)),
  reason: z.string().check(z.minLength(1), z.maxLength(PROPOSAL_LIMITS.reasonChars)),
  created: z.iso.datetime(),
  page: z.strictObject({
    slug: z.string().check(z.refine((slug) => slugProblem(slug) === undefined, { error: 'not a page slug' })),
    title: pageString,
    topic: pageString,
    summary: pageString,
    body: pageString,
  }),
  base: z.strictObject({ existed: z.boolean(), sha256: z.optional(z.string().check(z.regex(/^[0-9a-f]{64}$/))) }),
});

/** The proposal a file holds, or why it is not one; `id` is the one its file name gives. */
export function parseProposal(id: string, text: string): { proposal: Proposal } | { problem: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { problem: `not valid JSON: ${(error as Error).message}` };
  }
  const parsed = storedProposal.safeParse(data);
  if (!parsed.success) {
    const where = parsed.error.issues.slice(0, 3).map((issue) => issue.path.map(String).join('.') || '$');
    return { problem: `not a proposal: ${where.join(', ')} ${where.length === 1 ? 'is' : 'are'} missing or invalid` };
  }
  if (parsed.data.id !== id) return { problem: `its id "${parsed.data.id}" is not its file name's` };
  return { proposal: parsed.data as Proposal };
}
