import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { installMergeDriver } from '../../../src/adapters/git/gitHooks';
import { tempDir } from '../../support/tempDirs';

const CLI = path.resolve(__dirname, '../../../../dist/cli.js');
const PAGE = '.wiki/pages/caching.md';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
const cli = (cwd: string, ...args: string[]) => {
  const result = spawnSync(process.execPath, [CLI, ...args, '--workspace', cwd], { encoding: 'utf8' });
  assert.equal(result.status, 0, `repo-wiki ${args.join(' ')}: ${result.stdout}${result.stderr}`);
  return result.stdout;
};
const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
const write = (dir: string, file: string, text: string) => fs.writeFileSync(path.join(dir, file), text);
const anchorOf = (page: string, citation: string) => new RegExp(`\n  "${citation.replace(/[.*]/g, '\\$&')}": "([^"]+)"\n`).exec(page)?.[1];

const code = (a: string, b: string) => `export function cacheGet(key: string): string {\n  return ${a};\n}\n\nexport function cacheSet(key: string): void {\n  ${b};\n}\n`;
const BODY = '# Caching\n\nReads go through `src/cache.ts:cacheGet`.\n\nWrites go through `src/cache.ts:cacheSet`.\n';

/** A repository with a wiki page citing two functions, stamped and committed on main, and the page merge driver installed. */
function repository(): string {
  const dir = tempDir('repo-wiki-page-merge-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'test@example.com');
  git(dir, 'config', 'user.name', 'Test');
  cli(dir, 'init');
  fs.mkdirSync(path.join(dir, 'src'));
  write(dir, 'src/cache.ts', code('key', 'void key'));
  write(dir, PAGE, `---\ntitle: Caching\ntopic: patterns\nsummary: How the cache is read and written.\nstatus: active\ntags: [cache]\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n${BODY}`);
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'caching page');
  // Stamped once committed: each anchor records the commit, so a review keeps the anchors of code it did not change.
  cli(dir, 'drift', '--stamp');
  git(dir, 'commit', '-q', '-am', 'caching page stamped');
  return dir;
}

/** On a new branch from main: changes the code as `edit` says, commits it, reviews the page (re-stamping), commits that. */
function branch(dir: string, name: string, edit: () => void): void {
  git(dir, 'checkout', '-q', '-b', name, 'main');
  edit();
  git(dir, 'commit', '-q', '-am', `${name}: code`);
  cli(dir, 'drift', '--review', 'caching');
  git(dir, 'commit', '-q', '--allow-empty', '-am', `${name}: reviewed`);
}

/** Merges `from` into `into` (on a fresh branch, so both directions start from the same two branches). */
function merge(dir: string, into: string, from: string) {
  git(dir, 'checkout', '-q', '-B', `merge-${from}-into-${into}`, into);
  const result = spawnSync('git', ['merge', '--no-edit', from], { cwd: dir, encoding: 'utf8' });
  const conflicted = git(dir, 'diff', '--name-only', '--diff-filter=U').trim().split('\n').filter(Boolean);
  return { status: result.status, output: result.stdout + result.stderr, conflicted };
}

function abort(dir: string): void {
  git(dir, 'merge', '--abort');
}

describe('the page merge driver, in real git merges', function () {
  this.timeout(60000);

  it('merges anchors both branches re-stamped for different citations with no conflict, either way round', async () => {
    const dir = repository();
    await installMergeDriver(dir, CLI);
    branch(dir, 'alice', () => write(dir, 'src/cache.ts', code('key.trim()', 'void key')));
    branch(dir, 'bob', () => write(dir, 'src/cache.ts', code('key', 'void key.length')));
    const [alice, bob] = ['alice', 'bob'].map((name) => git(dir, 'show', `${name}:${PAGE}`));
    assert.notEqual(anchorOf(alice, 'src/cache.ts:cacheGet'), anchorOf(bob, 'src/cache.ts:cacheGet'), 'alice re-stamped cacheGet');
    assert.notEqual(anchorOf(alice, 'src/cache.ts:cacheSet'), anchorOf(bob, 'src/cache.ts:cacheSet'), 'bob re-stamped cacheSet');
    for (const [into, from] of [['alice', 'bob'], ['bob', 'alice']]) {
      const result = merge(dir, into, from);
      assert.equal(result.status, 0, result.output);
      assert.deepEqual(result.conflicted, []);
      const page = read(dir, PAGE);
      assert.equal(anchorOf(page, 'src/cache.ts:cacheGet'), anchorOf(alice, 'src/cache.ts:cacheGet'), `${from} into ${into}: alice's anchor`);
      assert.equal(anchorOf(page, 'src/cache.ts:cacheSet'), anchorOf(bob, 'src/cache.ts:cacheSet'), `${from} into ${into}: bob's anchor`);
      // The merged code is what each side reviewed, so the merged page has no drift.
      assert.match(cli(dir, 'drift'), /: 0 errors, 0 other issues\.$/m);
    }
  });

  it('leaves a citation both branches re-stamped differently as a conflict, the other anchors merged, either way round', async () => {
    const dir = repository();
    await installMergeDriver(dir, CLI);
    branch(dir, 'alice', () => write(dir, 'src/cache.ts', code('key.trim()', 'void key.length')));
    branch(dir, 'bob', () => write(dir, 'src/cache.ts', code('key.toLowerCase()', 'void key')));
    const [alice, bob] = ['alice', 'bob'].map((name) => git(dir, 'show', `${name}:${PAGE}`));
    for (const [into, from] of [['alice', 'bob'], ['bob', 'alice']]) {
      const result = merge(dir, into, from);
      assert.notEqual(result.status, 0, 'the merge stops for the conflict');
      assert.ok(result.conflicted.includes(PAGE), result.output);
      assert.match(result.output, /both sides changed anchor "src\/cache\.ts:cacheGet" of \.wiki\/pages\/caching\.md differently/);
      const [ours, theirs] = into === 'alice' ? [alice, bob] : [bob, alice];
      const get = (page: string) => `  "src/cache.ts:cacheGet": "${anchorOf(page, 'src/cache.ts:cacheGet')}"`;
      const page = read(dir, PAGE);
      assert.ok(page.includes(`anchors:\n<<<<<<< ours\n${get(ours)}\n=======\n${get(theirs)}\n>>>>>>> theirs\n`), page);
      assert.equal(anchorOf(page, 'src/cache.ts:cacheSet'), anchorOf(alice, 'src/cache.ts:cacheSet'), 'only alice re-stamped cacheSet: merged');
      assert.ok(page.endsWith(`---\n${BODY}`), 'the body, unchanged on both sides, is as it was');
      abort(dir);
    }
  });

  it('merges edits to different parts of the body as text, and marks edits to the same lines, either way round', async () => {
    const dir = repository();
    await installMergeDriver(dir, CLI);
    const edit = (from: string, to: string) => () => write(dir, PAGE, read(dir, PAGE).replace(from, to));
    branch(dir, 'alice', edit('# Caching\n', '# Caching\n\nThe cache is per process.\n'));
    const lines = { bob: 'Every write goes through', carol: 'All writes go through' };
    branch(dir, 'bob', edit('Writes go through', lines.bob));
    branch(dir, 'carol', edit('Writes go through', lines.carol));
    for (const [into, from] of [['alice', 'bob'], ['bob', 'alice']]) {
      const result = merge(dir, into, from);
      assert.equal(result.status, 0, result.output);
      assert.ok(read(dir, PAGE).endsWith(`---\n# Caching\n\nThe cache is per process.\n\nReads go through \`src/cache.ts:cacheGet\`.\n\n${lines.bob} \`src/cache.ts:cacheSet\`.\n`), read(dir, PAGE));
    }
    for (const [into, from] of [['bob', 'carol'], ['carol', 'bob']] as const) {
      const result = merge(dir, into, from);
      assert.deepEqual(result.conflicted, [PAGE], result.output);
      const line = (name: 'bob' | 'carol') => `${lines[name]} \`src/cache.ts:cacheSet\`.\n`;
      // git merge-file's own markers, in the body only.
      assert.ok(read(dir, PAGE).endsWith(`\n---\n# Caching\n\nReads go through \`src/cache.ts:cacheGet\`.\n\n<<<<<<< ours\n${line(into)}=======\n${line(from)}>>>>>>> theirs\n`), read(dir, PAGE));
      abort(dir);
    }
  });
});
