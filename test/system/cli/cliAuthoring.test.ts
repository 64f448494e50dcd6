import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pageText } from '../../support/fakes';
import { tempDir } from '../../support/tempDirs';

// The built CLI, run as a user would run it.
const CLI = path.resolve(__dirname, '../../../../dist/cli.js');

function run(args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function workspace(): string {
  const ws = tempDir('repo-wiki-authoring-');
  assert.equal(run(['init', '--workspace', ws]).code, 0);
  const pages = path.join(ws, '.wiki/pages');
  fs.writeFileSync(path.join(pages, 'target.md'), pageText('Target', '# Target\n'));
  fs.writeFileSync(path.join(pages, 'one.md'), pageText('One', 'Intro.\nSee [[target]] for more.\n'));
  fs.writeFileSync(path.join(pages, 'two.md'), pageText('Two', 'A [[target#Target|label]].\n'));
  return ws;
}

describe('repo-wiki backlinks and page rename', function () {
  this.timeout(20000);

  it('backlinks lists each linking page with the line of its link, as text and json', () => {
    const ws = workspace();
    const text = run(['backlinks', 'target', '--workspace', ws]);
    assert.equal(text.code, 0, text.stderr);
    assert.deepEqual(text.stdout.trim().split('\n'), ['.wiki/pages/one.md:11: See [[target]] for more.', '.wiki/pages/two.md:10: A [[target#Target|label]].']);
    const json = JSON.parse(run(['backlinks', 'target', '--workspace', ws, '--format', 'json']).stdout);
    assert.deepEqual(json.backlinks.map((b: { from: string; line: number }) => [b.from, b.line]), [['one', 11], ['two', 10]]);
    assert.equal(json.backlinks[1].heading, 'Target');
  });

  it('backlinks of a missing page fails with what to do', () => {
    const result = run(['backlinks', 'nope', '--workspace', workspace()]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /There is no page "nope"/);
  });

  it('page rename moves the page and its links, and lint stays clean', () => {
    const ws = workspace();
    const result = run(['page', 'rename', 'target', 'goal', '--workspace', ws]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Renamed \[\[target\]\] to \[\[goal\]\]; 2 links in 2 pages updated\./);
    assert.ok(!fs.existsSync(path.join(ws, '.wiki/pages/target.md')));
    assert.match(fs.readFileSync(path.join(ws, '.wiki/pages/two.md'), 'utf8'), /A \[\[goal#Target\|label\]\]\./);
    assert.match(fs.readFileSync(path.join(ws, '.wiki/log.jsonl'), 'utf8'), /"op":"rename"/);
    assert.doesNotMatch(run(['lint', '--workspace', ws]).stdout, /broken-link/);
  });

  it('page rename refuses a taken or invalid slug and changes nothing', () => {
    const ws = workspace();
    const taken = run(['page', 'rename', 'target', 'one', '--workspace', ws]);
    assert.equal(taken.code, 2);
    assert.match(taken.stderr, /A page called "one" already exists/);
    const invalid = run(['page', 'rename', 'target', 'Not A Slug', '--workspace', ws]);
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /not a valid page slug/);
    assert.ok(fs.existsSync(path.join(ws, '.wiki/pages/target.md')));
  });
});
