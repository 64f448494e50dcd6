import type { LocalCore } from '../adapters/localCore';
import type { Wiki } from '../core/wiki/wiki';
import type { Io } from './io';

/**
 * One `repo-wiki` command: what it is called, what help says about it, what it accepts, and what
 * it does. Each lives in src/cli/commands/<name>.ts; src/cli/commandTable.ts lists them all, and
 * the usage, each command's help and the option parsing are made from these objects alone.
 */
export interface CliCommand {
  /** One word, or a group and a word (`index rebuild`), as typed after `repo-wiki`. */
  readonly name: string;
  /** One line for the list of commands, lower case, without a full stop. */
  readonly summary: string;
  /** The arguments after the name, as help shows them (`SLUG`, `PATH...`); empty when it takes none, which is then checked here. */
  readonly usage: string;
  /** More for the command's own help: sentences, wrapped when printed. */
  readonly description?: string;
  /**
   * What the command works on. `wiki`: the workspace's wiki, which must exist (checked before the
   * command runs); `wiki-if-any`: the workspace, with or without a wiki; `folder`: the folder given
   * or the current one, wiki or not; `none`: neither, and no --workspace. Without --workspace, the
   * first two find the wiki in the current folder or the nearest one above it, as git finds `.git`.
   */
  readonly workspace: 'wiki' | 'wiki-if-any' | 'folder' | 'none';
  /** The values --format takes, text first (the default); none means the command has no --format. */
  readonly formats?: readonly Format[];
  /** The command's own options; --workspace, --format and -h/--help are added as the fields above say. */
  readonly options: readonly OptionSpec[];
  /** Runs the command; returns the exit code: 0 ok, 1 problems found, 2 a usage error or a failure. */
  run(args: CommandArgs, io: Io): Promise<number> | number;
}

export type Format = 'text' | 'json' | 'github' | 'md';

/** One option a command takes. An option has the same kind (a value or a flag) in every command that has it. */
export interface OptionSpec {
  /** The long name, without its dashes: `--review` is `review`. */
  readonly name: string;
  /** A one-letter alias (`h` for -h). */
  readonly short?: string;
  /** The value's placeholder in help (`SLUG`); an option without one is a flag. */
  readonly value?: string;
  /** The value when the option is not given (value options only); help shows it. */
  readonly default?: string;
  /** May be given more than once, every value kept in order; otherwise the last one given counts. */
  readonly repeatable?: boolean;
  readonly description: string;
}

/** What a command is run with, once its options are read and its workspace opened. */
export interface CommandArgs {
  /** The arguments after the command's name. */
  readonly positionals: readonly string[];
  /** Whether a flag was given. */
  flag(name: string): boolean;
  /** A value option's value (the last one given), or its default. */
  value(name: string): string | undefined;
  /** Every value of a repeatable option, in order. */
  values(name: string): string[];
  /** --format, checked against the command's formats; text when it has none. */
  readonly format: Format;
  /** The directory the command was run from; relative paths in arguments are resolved against it. */
  readonly cwd: string;
  /** The workspace's wiki. A command with `workspace: 'none'` has none (reading this throws). */
  readonly wiki: Wiki;
  /** The whole core (drift engine, tools, TypeScript), opened on the first call and shared by the rest; loaded only by the commands that need it. */
  core(): Promise<LocalCore>;
}
