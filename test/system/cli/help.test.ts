import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMANDS } from '../../../src/cli/commandTable';
import { optionsOf } from '../../../src/cli/options';
import { CLI } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

// The built CLI, run as a user would run it, from a folder with no wiki: help and --version need none.
let cwd: string;
function run(args: string[]) {
  cwd ??= tempDir('repo-wiki-help-');
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const VERSION = (JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8')) as { version: string }).version;

describe('repo-wiki --version and help', function () {
  this.timeout(20000);

  it('--version prints the package version alone, exit 0', () => {
    const result = run(['--version']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${VERSION}\n`);
    assert.equal(result.stderr, '');
  });

  it('--help, -h and help print the list of every command on stdout, exit 0', () => {
    const help = run(['--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.equal(help.stderr, '');
    assert.match(help.stdout, /^Usage: repo-wiki <command>/);
    for (const command of COMMANDS) assert.match(help.stdout, new RegExp(`^  ${command.name}\\b`, 'm'), command.name);
    assert.match(help.stdout, /--version/);
    assert.equal(run(['-h']).stdout, help.stdout);
    assert.equal(run(['help']).stdout, help.stdout);
  });

  it('no command prints the list on stderr, exit 2', () => {
    const result = run([]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^Usage: repo-wiki <command>/);
  });

  it('every command has its help: "COMMAND --help", "COMMAND -h" and "help COMMAND" print it, with each of its options', function () {
    // Three processes per command: about 0.1 s each on an idle machine, 0.4 s on a loaded one.
    this.timeout(60000);
    for (const command of COMMANDS) {
      const words = command.name.split(' ');
      const help = run([...words, '--help']);
      assert.equal(help.code, 0, `${command.name}: ${help.stderr}`);
      assert.equal(help.stderr, '');
      assert.ok(help.stdout.startsWith(`Usage: repo-wiki ${command.name}`), help.stdout);
      for (const option of optionsOf(command)) assert.match(help.stdout, new RegExp(`--${option.name}\\b`), `${command.name} --${option.name}`);
      assert.equal(run([...words, '-h']).stdout, help.stdout);
      assert.equal(run(['help', ...words]).stdout, help.stdout);
    }
  });

  it('a command\'s help lists its own options and no other command\'s', () => {
    const drift = run(['drift', '--help']).stdout;
    assert.match(drift, /--changed-since REF/);
    assert.match(drift, /--review SLUG .*\n.*\n?.*repeatable/);
    assert.match(drift, /--format FORMAT +text, json or github/);
    assert.doesNotMatch(drift, /--dry-run|--offline|--llm/);
    const merge = run(['index', 'merge', '--help']).stdout;
    assert.match(merge, /^Usage: repo-wiki index merge BASE OURS THEIRS \[PATH\]/);
    assert.doesNotMatch(merge, /--workspace|--format/, 'git runs it with files only');
  });

  it('help of a group (index) shows each of its commands', () => {
    const result = run(['help', 'index']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Usage: repo-wiki index rebuild/);
    assert.match(result.stdout, /Usage: repo-wiki index merge/);
    assert.equal(run(['index', '--help']).stdout, result.stdout);
  });

  it('help fits in 80 columns', () => {
    const texts = [run(['--help']).stdout, ...COMMANDS.map((command) => run(['help', ...command.name.split(' ')]).stdout)];
    for (const line of texts.join('\n').split('\n')) assert.ok(line.length <= 80, `too wide: ${line}`);
  });

  it('help needs no wiki, and wins over the other options', () => {
    const result = run(['drift', '--workspace', '/no/such/folder', '--nope', '--help']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Usage: repo-wiki drift/);
  });

  it('an unknown option is one line naming the command\'s help, exit 2, with no usage dump', () => {
    const result = run(['drift', '--nope']);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, 'repo-wiki drift: unknown option --nope. See "repo-wiki drift --help".\n');
    const other = run(['lint', '--stamp']);
    assert.equal(other.code, 2);
    assert.equal(other.stderr, 'repo-wiki lint: unknown option --stamp. See "repo-wiki lint --help".\n', 'an option of another command');
    const global = run(['--versoin']);
    assert.equal(global.code, 2);
    assert.equal(global.stderr, 'repo-wiki: unknown option --versoin. See "repo-wiki --help" for the commands.\n');
  });

  it('a missing value, a value given to a flag and a stray argument are usage errors naming the command\'s help', () => {
    const cases: [string[], RegExp][] = [
      [['drift', '--workspace'], /^repo-wiki drift: --workspace needs a value \(--workspace DIR\)\. See "repo-wiki drift --help"\.\n$/],
      [['drift', '--changed-since', '--format=json'], /^repo-wiki drift: --changed-since needs a value, and "--format=json" looks like an option/],
      [['drift', '--stamp=yes'], /^repo-wiki drift: --stamp takes no value \(got "yes"\)/],
      [['lint', 'extra'], /^repo-wiki lint takes no arguments \(got "extra"\)\. See "repo-wiki lint --help"\.\n$/],
      [['index'], /^repo-wiki index needs one of: index rebuild, index merge\./],
      [['help', 'nope'], /^Unknown command "nope"\./],
      [['frobnicate'], /^Unknown command "frobnicate"\. See "repo-wiki --help" for the commands\.\n$/],
    ];
    for (const [args, expected] of cases) {
      const result = run(args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, expected, args.join(' '));
    }
  });

  it('options may come before the command, and a repeatable option keeps every value', () => {
    const ws = tempDir('repo-wiki-help-ws-');
    fs.cpSync(path.resolve(__dirname, '../../../../demo'), ws, { recursive: true });
    const result = run(['--workspace', ws, '--format', 'json', 'drift', '--review', 'no-such-page', '--review', 'request-pipeline']);
    assert.equal(result.code, 2, 'the first page named does not exist: a repeated option keeps its first value');
    assert.match(result.stderr, /There is no page "no-such-page" to review/);
    assert.ok(JSON.parse(result.stdout).citationsChecked > 0, 'the check still runs, as JSON');
  });
});
