import * as assert from 'node:assert/strict';
import type { CliCommand } from '../../../src/cli/command';
import { COMMANDS, findCommand } from '../../../src/cli/commandTable';
import { commandHelp, generalHelp, wrap } from '../../../src/cli/help';
import { optionsOf, readOptions, splitArguments } from '../../../src/cli/options';

const ALL = COMMANDS.flatMap(optionsOf);
const read = (argv: string[], command: CliCommand) => readOptions(splitArguments(argv, ALL).options, optionsOf(command), 'HELP');
const named = (name: string) => COMMANDS.find((command) => command.name === name)!;

describe('the CLI command table', () => {
  it('names each command once, with a one-line summary', () => {
    const names = COMMANDS.map((command) => command.name);
    assert.equal(new Set(names).size, names.length);
    for (const command of COMMANDS) {
      assert.match(command.name, /^[a-z-]+( [a-z-]+)?$/, command.name);
      assert.ok(command.summary.length <= 56 && !command.summary.includes('\n') && !command.summary.endsWith('.'), `${command.name}: ${command.summary}`);
      assert.match(command.summary, /^[a-z.]/, `${command.name}: a summary starts in lower case`);
    }
  });

  it('gives each option one kind (a value or a flag) in every command, and no command an option twice', () => {
    for (const command of COMMANDS) {
      const names = optionsOf(command).map((option) => option.name);
      assert.equal(new Set(names).size, names.length, command.name);
    }
    for (const option of ALL) {
      const same = ALL.filter((other) => other.name === option.name);
      assert.ok(same.every((other) => !!other.value === !!option.value && other.short === option.short), `--${option.name}`);
    }
  });

  it('a command with a workspace takes --workspace, one with formats --format; every command -h', () => {
    for (const command of COMMANDS) {
      const names = optionsOf(command).map((option) => option.name);
      assert.equal(names.includes('workspace'), command.workspace !== 'none', command.name);
      assert.equal(names.includes('format'), !!command.formats?.length, command.name);
      assert.ok(names.includes('help'));
      if (command.formats) assert.equal(command.formats[0], 'text', `${command.name}: text is the default format`);
    }
  });

  it('finds the longest name first, a group by its first word, and nothing for an unknown word', () => {
    assert.deepEqual(findCommand(['index', 'rebuild', 'x']), { command: named('index rebuild'), rest: ['x'] });
    assert.deepEqual(findCommand(['query', 'what', 'now']), { command: named('query'), rest: ['what', 'now'] });
    assert.deepEqual(findCommand(['index']), { group: 'index', commands: [named('index rebuild'), named('index merge')] });
    assert.deepEqual(findCommand(['index', 'nope']), { unknown: 'index nope' });
    assert.deepEqual(findCommand(['nope', 'x']), { unknown: 'nope' });
  });
});

describe('CLI option parsing', () => {
  it('reads flags, values, repeated values and defaults, wherever they stand', () => {
    const result = read(['--review', 'a', 'drift', '--stamp', '--review=b', '--format', 'json'], named('drift'));
    assert.ok('values' in result);
    assert.deepEqual([...result.values], [['review', ['a', 'b']], ['stamp', true], ['format', 'json']]);
    const lint = read(['lint'], named('lint'));
    assert.ok('values' in lint);
    assert.equal(lint.values.get('min-age-days'), '7');
    assert.equal(lint.values.get('format'), 'text');
  });

  it('the last value of an option that is not repeatable counts', () => {
    const result = read(['query', '--model', 'a', '--model', 'b'], named('query'));
    assert.ok('values' in result);
    assert.equal(result.values.get('model'), 'b');
  });

  it('refuses an option the command does not take, a missing value, an option taken for a value, and a value given to a flag', () => {
    assert.deepEqual(read(['lint', '--stamp'], named('lint')), { error: 'unknown option --stamp. HELP' });
    assert.deepEqual(read(['lint', '-x'], named('lint')), { error: 'unknown option -x. HELP' });
    assert.deepEqual(read(['drift', '--workspace'], named('drift')), { error: '--workspace needs a value (--workspace DIR). HELP' });
    assert.match((read(['drift', '--changed-since', '--fix'], named('drift')) as { error: string }).error, /^--changed-since needs a value, and "--fix" looks like an option/);
    assert.deepEqual(read(['drift', '--changed-since=-x'], named('drift')), { values: new Map<string, string | string[] | true>([['changed-since', '-x'], ['format', 'text']]) });
    assert.deepEqual(read(['drift', '--fix=yes'], named('drift')), { error: '--fix takes no value (got "yes"). HELP' });
  });

  it('keeps what follows -- as arguments', () => {
    assert.deepEqual(splitArguments(['query', '--', '--why?'], ALL).positionals, ['query', '--why?']);
  });
});

describe('CLI help', () => {
  it('is made from the table: every command in the list, every option in its help', () => {
    const general = generalHelp(COMMANDS);
    for (const command of COMMANDS) {
      assert.ok(general.includes(`  ${command.name}`), command.name);
      const help = commandHelp(command);
      for (const option of optionsOf(command)) assert.ok(help.includes(`--${option.name}`), `${command.name} --${option.name}`);
    }
    assert.match(general, /--format FORMAT +text \(the default\) or json; drift also takes github/);
  });

  it('wraps words at the width, a long word on a line of its own', () => {
    assert.deepEqual(wrap('aa bb cc dd', 5), ['aa bb', 'cc dd']);
    assert.deepEqual(wrap('a verylongword b', 4), ['a', 'verylongword', 'b']);
  });
});
