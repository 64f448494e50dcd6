import type { CliCommand, OptionSpec } from './command';
import { FOUND_WORKSPACE_OPTION, HELP_OPTION, optionsOf, or, VERSION_OPTION } from './options';

/** Help is wrapped to this many columns, whatever the terminal: it reads the same in a log or a pipe. */
const WIDTH = 80;
/** Where the descriptions start in a two-column list. */
const COLUMN = 24;

/** `repo-wiki --help`: every command with its summary, the options they share, and where each command's own are. */
export function generalHelp(commands: readonly CliCommand[]): string {
  return [
    'Usage: repo-wiki <command> [arguments] [options]',
    '',
    'Commands:',
    ...twoColumns([...commands.map((command): [string, string] => [invocation(command), command.summary]), ['help [COMMAND]', 'show this help, or a command\'s']]),
    '',
    'Options:',
    ...twoColumns([optionRow({ ...FOUND_WORKSPACE_OPTION, description: 'the workspace folder (default: the nearest folder with a .wiki/, from the current one up; for init, the current one)' }), ['--format FORMAT', formatsSaid(commands)], optionRow(HELP_OPTION), optionRow(VERSION_OPTION)]),
    '',
    'A command\'s own options: repo-wiki help COMMAND, or repo-wiki COMMAND --help.',
  ].join('\n');
}

/** `text (the default) or json; drift also takes github`: the formats every command with --format takes, then the others and who takes them. */
function formatsSaid(commands: readonly CliCommand[]): string {
  const taking = commands.filter((command) => command.formats?.length);
  const everywhere = taking[0]?.formats?.filter((format) => taking.every((command) => command.formats!.includes(format))) ?? [];
  const others = [...new Set(taking.flatMap((command) => command.formats!))].filter((format) => !everywhere.includes(format));
  const also = others.map((format) => {
    const names = taking.filter((command) => command.formats!.includes(format)).map((command) => command.name);
    return `${or(names).replace(' or ', ' and ')} also ${names.length === 1 ? 'takes' : 'take'} ${format}`;
  });
  return [`${everywhere[0]} (the default) or ${or(everywhere.slice(1))}`, ...also].join('; ');
}

/** `repo-wiki drift --help`: the command's usage, what it does, and every option it takes. */
export function commandHelp(command: CliCommand): string {
  const about = `${command.summary[0].toUpperCase()}${command.summary.slice(1)}.${command.description ? ` ${command.description}` : ''}`;
  return [usageLine(command), '', ...wrap(about, WIDTH), '', 'Options:', ...twoColumns(optionsOf(command).map(optionRow))].join('\n');
}

/** `Usage: repo-wiki backlinks SLUG [options]`. */
export function usageLine(command: Pick<CliCommand, 'name' | 'usage'>): string {
  return `Usage: repo-wiki ${invocation(command)} [options]`;
}

/** Where to read how a command is used (or, without one, which commands there are), for the end of a usage error. */
export function seeHelp(command: Pick<CliCommand, 'name'> | undefined): string {
  return command ? `See "repo-wiki ${command.name} --help".` : 'See "repo-wiki --help" for the commands.';
}

function invocation(command: Pick<CliCommand, 'name' | 'usage'>): string {
  return command.usage ? `${command.name} ${command.usage}` : command.name;
}

function optionRow(option: OptionSpec): [string, string] {
  const name = `${option.short ? `-${option.short}, ` : ''}--${option.name}${option.value ? ` ${option.value}` : ''}`;
  const notes = [option.default !== undefined ? `default ${option.default}` : '', option.repeatable ? 'repeatable' : ''].filter(Boolean);
  return [name, notes.length ? `${option.description} (${notes.join('; ')})` : option.description];
}

/** Rows as `  left  description`, descriptions wrapped at one column; a left side too long for it puts its description on the next line. */
function twoColumns(rows: readonly [string, string][]): string[] {
  const lines: string[] = [];
  for (const [left, text] of rows) {
    const wrapped = wrap(text, WIDTH - COLUMN);
    const indent = ' '.repeat(COLUMN);
    if (left.length + 4 > COLUMN) lines.push(`  ${left}`, ...wrapped.map((line) => indent + line));
    else lines.push(`  ${left.padEnd(COLUMN - 2)}${wrapped[0]}`, ...wrapped.slice(1).map((line) => indent + line));
  }
  return lines;
}

/** Words into lines of at most `width` characters (a longer word gets a line of its own). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}
