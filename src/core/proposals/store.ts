import * as path from 'node:path';
import { isFileAccessError, isNotAFile, WikiError } from '../errors';
import type { FileSystem } from '../ports';
import { isProposalId, parseProposal, PROPOSAL_LIMITS, type Proposal } from './proposal';

/** A file in the proposals folder that is not a proposal one can review: corrupt, refused, misnamed. */
export interface UnreadableProposal {
  /** The file name without `.json`. */
  id: string;
  problem: string;
}

export interface ProposalList {
  /** Newest first. */
  proposals: Proposal[];
  unreadable: UnreadableProposal[];
  /** Files past the cap that were not read at all (only a hand-filled folder has any). */
  unread: number;
}

/**
 * Pending proposals, one JSON file each in `.wiki/.cache/proposals/`: local state, git-ignored,
 * never pages. Every path is built from a checked id, and every access stays within `.wiki/`.
 */
export class ProposalStore {
  readonly dir: string;
  /** Taken around each add, so the cap on pending proposals holds for clients adding at once (processes too). */
  private readonly lockPath: string;

  constructor(
    private readonly wikiDir: string,
    private readonly fs: FileSystem,
  ) {
    this.dir = path.join(wikiDir, '.cache', 'proposals');
    this.lockPath = path.join(wikiDir, '.cache', 'proposals.lock');
  }

  async list(): Promise<ProposalList> {
    const ids = await this.ids();
    const proposals: Proposal[] = [];
    const unreadable: UnreadableProposal[] = [];
    for (const id of ids.slice(0, PROPOSAL_LIMITS.pending)) {
      if (!isProposalId(id)) {
        unreadable.push({ id, problem: 'its file name is not a proposal id' });
        continue;
      }
      const read = await this.read(id);
      if (read && 'proposal' in read) proposals.push(read.proposal);
      else if (read) unreadable.push({ id, problem: read.problem });
    }
    return { proposals, unreadable, unread: Math.max(0, ids.length - PROPOSAL_LIMITS.pending) };
  }

  /** The proposal, or undefined when there is none under that id; a corrupt or refused file throws. */
  async get(id: string): Promise<Proposal | undefined> {
    if (!isProposalId(id)) return undefined;
    const read = await this.read(id);
    if (read && 'problem' in read) throw new WikiError('invalid-proposal', `The proposal ${id} cannot be read: ${read.problem}.`, `Reject it to delete ${this.shown(id)}.`);
    return read?.proposal;
  }

  /**
   * Stores a new proposal; refuses past the cap on pending proposals or on a file's size. The count
   * and the write happen under the proposals' lock: counting first and writing after, two clients
   * could each see room for one more.
   */
  async add(proposal: Proposal): Promise<void> {
    const text = `${JSON.stringify(proposal, null, 2)}\n`;
    if (new TextEncoder().encode(text).length > PROPOSAL_LIMITS.fileBytes) {
      throw new WikiError('write-failed', `The proposal is larger than ${PROPOSAL_LIMITS.fileBytes / 1024} KB; it was not stored.`, 'Propose a shorter page.');
    }
    await this.fs.withLock(this.lockPath, async () => {
      if (await this.isFull()) throw fullError();
      await this.fs.mkdir(this.dir, { within: this.wikiDir });
      await this.fs.writeFileAtomic(this.file(proposal.id), text, { within: this.wikiDir });
    });
  }

  /** Deletes the proposal's file, even a corrupt one; false when there was none. */
  async remove(id: string): Promise<boolean> {
    if (!isProposalId(id) || !(await this.fs.stat(this.dir))) return false;
    return this.fs.remove(this.file(id), { within: this.wikiDir });
  }

  async isFull(): Promise<boolean> {
    return (await this.ids()).length >= PROPOSAL_LIMITS.pending;
  }

  /** Ids of the files in the folder, newest first. */
  private async ids(): Promise<string[]> {
    if (!(await this.fs.stat(this.dir))) return [];
    const names = await this.fs.readdir(this.dir, { within: this.wikiDir });
    // Temp files of atomic writes start with a dot; anything else that is not JSON is not ours.
    return names.filter((name) => name.endsWith('.json') && !name.startsWith('.')).map((name) => name.slice(0, -5)).sort().reverse();
  }

  /** The proposal or why not; undefined when the file is gone (deleted since the listing). */
  private async read(id: string): Promise<{ proposal: Proposal } | { problem: string } | undefined> {
    let bytes: Uint8Array;
    try {
      bytes = await this.fs.readFile(this.file(id), { within: this.wikiDir, maxBytes: PROPOSAL_LIMITS.fileBytes });
    } catch (error) {
      if (isNotAFile(error)) return undefined;
      if (isFileAccessError(error)) return { problem: error.message };
      throw error;
    }
    return parseProposal(id, new TextDecoder().decode(bytes));
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  private shown(id: string): string {
    return `.wiki/.cache/proposals/${id}.json`;
  }
}

export function fullError(): WikiError {
  return new WikiError('proposals-full', `${PROPOSAL_LIMITS.pending} proposals are already waiting for review; no more are stored until people accept or reject some.`, 'Review them with "repo-wiki proposals list".');
}
