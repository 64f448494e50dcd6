import { parseArgs } from 'node:util';
import { MODEL_DEFAULTS } from '../core/defaults';
import type { CliCommand, OptionSpec } from './command';

export const HELP_OPTION: OptionSpec = { name: 'help', short: 'h', description: 'show this help' };
export const VERSION_OPTION: OptionSpec = { name: 'version', description: 'print the version of repo-wiki' };
const WORKSPACE_OPTION: OptionSpec = { name: 'workspace', value: 'DIR', description: 'the workspace folder (default: the current directory)' };
/** For the commands that find the wiki upward: the default is where it was found. */
export const FOUND_WORKSPACE_OPTION: OptionSpec = { ...WORKSPACE_OPTION, description: 'the workspace folder (default: the nearest folder with a .wiki/, from the current one up)' };
/** --model and --fallback, for the commands that ask a model. */
export const MODEL_OPTIONS: OptionSpec[] = [
  { name: 'model', value: 'PROVIDER/MODEL', description: `the model, e.g. ollama/qwen2.5-coder:7b or openai/gpt-4.1 (default: REPO_WIKI_MODEL, else ${MODEL_DEFAULTS.model})` },
  { name: 'fallback', value: 'PROVIDER/MODEL', repeatable: true, description: 'a model to try when the ones before it fail (repeatable, tried in order)' },
];

/** The options a command takes: its own, then --workspace and --format when it has them, then -h/--help. */
export function optionsOf(command: CliCommand): OptionSpec[] {
  const formats = command.formats ?? [];
  return [
    ...command.options,
    ...(command.workspace === 'none' ? [] : [command.workspace === 'folder' ? WORKSPACE_OPTION : FOUND_WORKSPACE_OPTION]),
    ...(formats.length ? [{ name: 'format', value: 'FORMAT', default: formats[0], description: or(formats) }] : []),
    HELP_OPTION,
  ];
}

/** An option as typed on the command line, read before its command is known. */
export interface OptionToken {
  name: string;
  /** As typed: `--review`, `-h`. */
  rawName: string;
  value?: string;
  /** The value came after `=` (`--format=json`), not as the next argument. */
  inlineValue?: boolean;
}

/**
 * Splits the arguments into positionals (the command's name and its arguments) and options, in
 * any order, as every command reads them: an option any command declares with a value takes the
 * next argument, `--` ends the options. Nothing is refused here; see `readOptions`.
 */
export function splitArguments(argv: readonly string[], known: readonly OptionSpec[]): { positionals: string[]; options: OptionToken[] } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const spec of known) options[spec.name] = { type: spec.value ? 'string' : 'boolean', ...(spec.short ? { short: spec.short } : {}) };
  const { positionals, tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const found: OptionToken[] = [];
  for (const token of tokens) if (token.kind === 'option') found.push({ name: token.name, rawName: token.rawName, value: token.value, inlineValue: token.inlineValue });
  return { positionals, options: found };
}

export type OptionValues = ReadonlyMap<string, string | string[] | true>;

/**
 * The values of `options` for a command that takes `specs`, defaults filled in; or, for an option
 * it does not take, a value missing or one given to a flag, what is wrong (`help` names where
 * the right ones are listed).
 */
export function readOptions(options: readonly OptionToken[], specs: readonly OptionSpec[], help: string): { values: OptionValues } | { error: string } {
  const values = new Map<string, string | string[] | true>();
  for (const token of options) {
    const spec = specs.find((s) => s.name === token.name);
    if (!spec) return { error: `unknown option ${token.rawName}. ${help}` };
    if (!spec.value) {
      if (token.value !== undefined) return { error: `${token.rawName} takes no value (got "${token.value}"). ${help}` };
      values.set(spec.name, true);
      continue;
    }
    if (token.value === undefined) return { error: `${token.rawName} needs a value (${token.rawName} ${spec.value}). ${help}` };
    // As parseArgs's strict mode: `--changed-since --output=x` is a forgotten value, not the value "--output=x".
    if (!token.inlineValue && token.value.length > 1 && token.value.startsWith('-')) {
      return { error: `${token.rawName} needs a value, and "${token.value}" looks like an option; write ${token.rawName}=${token.value} if that is the value. ${help}` };
    }
    const before = values.get(spec.name);
    values.set(spec.name, spec.repeatable ? [...(Array.isArray(before) ? before : []), token.value] : token.value);
  }
  for (const spec of specs) if (spec.default !== undefined && !values.has(spec.name)) values.set(spec.name, spec.default);
  return { values };
}

/** `text, json or github`. */
export function or(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}
