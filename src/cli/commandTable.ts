import type { CliCommand } from './command';
import { agentsMd } from './commands/agentsMd';
import { backlinks } from './commands/backlinks';
import { conversations } from './commands/conversations';
import { drift } from './commands/drift';
import { generate } from './commands/generate';
import { hookInstall } from './commands/hookInstall';
import { indexMerge } from './commands/indexMerge';
import { indexRebuild } from './commands/indexRebuild';
import { ingest } from './commands/ingest';
import { init } from './commands/init';
import { lint } from './commands/lint';
import { map } from './commands/map';
import { mcp } from './commands/mcp';
import { mergeDriverInstall } from './commands/mergeDriverInstall';
import { pageMerge } from './commands/pageMerge';
import { pageRename } from './commands/pageRename';
import { proposals } from './commands/proposals';
import { query } from './commands/query';
import { upkeep } from './commands/upkeep';

/**
 * Every `repo-wiki` command, in the order `repo-wiki --help` lists them. A new command is a file in
 * src/cli/commands/ and a line here: usage, help and option parsing come from its object.
 */
export const COMMANDS: readonly CliCommand[] = [
  init,
  indexRebuild,
  lint,
  drift,
  query,
  conversations,
  hookInstall,
  mergeDriverInstall,
  indexMerge,
  pageMerge,
  ingest,
  generate,
  mcp,
  agentsMd,
  upkeep,
  backlinks,
  map,
  pageRename,
  proposals,
];

/** What the first words of a command line name: a command (and the arguments after its name), a group of commands (`index`), or nothing known. */
export type Found = { command: CliCommand; rest: string[] } | { group: string; commands: CliCommand[] } | { unknown: string };

/** The command the words start with, the longest name first (`index rebuild` before a group `index`). */
export function findCommand(words: readonly string[], commands: readonly CliCommand[] = COMMANDS): Found {
  const named = commands
    .map((command) => ({ command, parts: command.name.split(' ') }))
    .filter(({ parts }) => parts.every((part, i) => words[i] === part))
    .sort((a, b) => b.parts.length - a.parts.length)[0];
  if (named) return { command: named.command, rest: words.slice(named.parts.length) };
  const group = commands.filter((command) => command.name.startsWith(`${words[0]} `));
  if (group.length && words.length === 1) return { group: words[0], commands: group };
  return { unknown: group.length ? words.slice(0, 2).join(' ') : words[0] };
}
