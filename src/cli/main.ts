import * as path from 'node:path';
import type { LocalCore } from '../adapters/localCore';
import { WikiError } from '../core/errors';
import { terminalSafe } from '../core/text/terminalText';
import { packageVersion } from './bundle';
import type { CliCommand, CommandArgs, Format } from './command';
import { COMMANDS, findCommand } from './commandTable';
import { commandHelp, generalHelp, seeHelp } from './help';
import { escapedIo, type Io } from './io';
import { optionsOf, readOptions, splitArguments, VERSION_OPTION, type OptionToken, type OptionValues } from './options';
import { findWikiFolder } from './wikiFolder';

/**
 * Runs one CLI invocation and returns its exit code: 0 ok, 1 problems found (lint errors, drift, a
 * merge conflict), 2 a usage error or a failure. The commands, their help and their options are
 * the objects of src/cli/commandTable.ts; this finds the one named and runs it.
 */
export async function runCli(argv: string[], terminal: Io, cwd = process.cwd()): Promise<number> {
  const io = escapedIo(terminal);
  // Every option any command takes is known here, so an option's value is never read as a command's name.
  const known = [VERSION_OPTION, ...COMMANDS.flatMap(optionsOf)];
  const { positionals, options } = splitArguments(argv, known);
  const asked = (name: string) => options.some((option) => option.name === name);
  if (positionals[0] === 'help') return help(positionals.slice(1), io);
  if (!positionals.length) {
    const unknown = options.find((option) => !known.some((spec) => spec.name === option.name));
    if (unknown) {
      io.err(`repo-wiki: unknown option ${unknown.rawName}. ${seeHelp(undefined)}`);
      return 2;
    }
    if (asked('help') || asked('version')) {
      io.out(asked('help') ? generalHelp(COMMANDS) : packageVersion());
      return 0;
    }
    // No command at all: the list of them, as a usage error.
    io.err(generalHelp(COMMANDS));
    return 2;
  }
  // `COMMAND --help` is `help COMMAND`.
  if (asked('help')) return help(positionals, io);
  const found = findCommand(positionals);
  if ('unknown' in found) {
    io.err(`Unknown command "${found.unknown}". ${seeHelp(undefined)}`);
    return 2;
  }
  if ('group' in found) {
    io.err(`repo-wiki ${found.group} needs one of: ${found.commands.map((command) => command.name).join(', ')}. ${seeHelp(undefined)}`);
    return 2;
  }
  return runCommand(found.command, found.rest, options, io, cwd);
}

/** `repo-wiki help [COMMAND]`. */
function help(words: readonly string[], io: Io): number {
  if (!words.length) {
    io.out(generalHelp(COMMANDS));
    return 0;
  }
  const found = findCommand(words);
  if ('unknown' in found) {
    io.err(`Unknown command "${found.unknown}". ${seeHelp(undefined)}`);
    return 2;
  }
  io.out('group' in found ? found.commands.map(commandHelp).join('\n\n') : commandHelp(found.command));
  return 0;
}

/** Reads the command's options, opens its workspace, and runs it; a refusal (a WikiError) or a failure is one line and exit 2. */
async function runCommand(command: CliCommand, positionals: string[], options: readonly OptionToken[], io: Io, cwd: string): Promise<number> {
  const read = readOptions(options, optionsOf(command), seeHelp(command));
  if ('error' in read) {
    io.err(`repo-wiki ${command.name}: ${read.error}`);
    return 2;
  }
  if (!command.usage && positionals.length) {
    io.err(`repo-wiki ${command.name} takes no arguments (got "${positionals.join(' ')}"). ${seeHelp(command)}`);
    return 2;
  }
  const values = read.values;
  const format = (values.get('format') ?? 'text') as Format;
  const formats = command.formats ?? [];
  if (formats.length && !formats.includes(format)) {
    io.err(`--format must be ${formats.join(' or ')}, not "${format}".`);
    return 2;
  }
  const given = stringValue(values, 'workspace');
  const searched = given === undefined && (command.workspace === 'wiki' || command.workspace === 'wiki-if-any');
  const root = path.resolve(cwd, given ?? (searched ? findWikiFolder(cwd) ?? '.' : '.'));
  try {
    // The wiki (its pages' parser, the guarded file access) loads for the commands with a workspace: not for help, nor for git's merges.
    const wiki = command.workspace === 'none' ? undefined : (await import('../adapters/workspace')).openWorkspace(root).wiki;
    if (command.workspace === 'wiki' && !(await wiki!.exists())) {
      const where = searched ? `${wiki!.root} or any folder above it` : wiki!.root;
      throw new WikiError('no-wiki', `There is no .wiki/ folder in ${where}.`, 'Run "repo-wiki init" in the repository\'s root folder first, or pass --workspace.');
    }
    let core: Promise<LocalCore> | undefined;
    const args: CommandArgs = {
      positionals,
      format,
      cwd,
      flag: (name) => values.get(name) === true,
      value: (name) => stringValue(values, name),
      values: (name) => [values.get(name) ?? []].flat().filter((value): value is string => typeof value === 'string'),
      get wiki() {
        if (!wiki) throw new Error(`repo-wiki ${command.name} works on no workspace.`);
        return wiki;
      },
      // The whole core (TypeScript, the tools) loads only for the commands that need it, once per run.
      core: () => (core ??= import('../adapters/localCore').then(({ openLocalCore }) => openLocalCore(root, { semantic: values.get('semantic') === true }))),
    };
    return await command.run(args, io);
  } catch (error) {
    io.err(`repo-wiki: ${error instanceof WikiError ? error.userMessage : (error as Error).message}`);
    return 2;
  }
}

function stringValue(values: OptionValues, name: string): string | undefined {
  const value = values.get(name);
  return typeof value === 'string' ? value : undefined;
}

if (require.main === module) {
  runCli(process.argv.slice(2), { out: (t) => console.log(t), err: (t) => console.error(t), write: (t) => process.stdout.write(t) }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // A bug, not a user error: still one escaped line, never a raw message with escape sequences.
      console.error(terminalSafe(`repo-wiki: ${error instanceof Error ? error.stack ?? error.message : String(error)}`));
      process.exitCode = 2;
    },
  );
}
