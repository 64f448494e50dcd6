import { commitMessage } from './commitMessage';
import { WikiError } from '../errors';
import { entriesSince } from '../wiki/log';
import type { WikiGit } from '../ports';
import type { Wiki } from '../wiki/wiki';

/** What a wiki commit would record: the changed wiki paths and a generated message. */
export async function prepareWikiCommit(wiki: Wiki, git: WikiGit): Promise<{ message: string; paths: string[] }> {
  const reason = await git.unavailableReason();
  if (reason) throw new WikiError('git-unavailable', reason, 'Initialise a git repository (git init) or install git, then try again.');
  const paths = await git.changedWikiPaths();
  if (!paths.length) throw new WikiError('nothing-to-commit', 'The wiki has no changes to commit.');
  const { text } = await wiki.readLog();
  const entries = entriesSince(await git.logAtHead(), text).filter((entry) => entry.op !== 'commit');
  return { message: commitMessage(entries, paths), paths };
}

/** Records the commit in the log (so the log line is part of it) and commits only `.wiki/`. */
export async function commitWiki(wiki: Wiki, git: WikiGit, message: string): Promise<{ commit: string; files: string[] }> {
  const subject = message.split('\n', 1)[0];
  await wiki.appendLog({ op: 'commit', pages: [], message: subject });
  return git.commitWiki(message);
}
