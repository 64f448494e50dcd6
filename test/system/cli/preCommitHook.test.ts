import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { installPreCommitHook } from '../../../src/adapters/git/gitHooks';
import type { WikiError } from '../../../src/core/errors';
import { hookBlock, installHook } from '../../../src/core/git/preCommitHook';
import { tempDir } from '../../support/tempDirs';

const CLI = path.resolve(__dirname, '../../../../dist/cli.js');
const DEMO = path.resolve(__dirname, '../../../../demo');

function git(cwd: string, ...args: string[]) {
  return spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, PATH: '/usr/bin:/bin' } });
}

/** The demo project as a git repository with one commit, in a subfolder `app/` of the repository. */
function demoRepo(): { repo: string; folder: string } {
  const repo = tempDir('repo-wiki-hook-');
  const folder = path.join(repo, 'app');
  fs.cpSync(DEMO, folder, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  execFileSync('git', ['config', 'user.email', 't@example.com'], { cwd: repo });
  execFileSync('git', ['config', 'user.name', 'T'], { cwd: repo });
  execFileSync('git', ['add', '.'], { cwd: repo });
  execFileSync('git', ['commit', '-q', '-m', 'demo', '--no-verify'], { cwd: repo });
  return { repo, folder };
}

describe('pre-commit drift check', function () {
  this.timeout(60000);

  it('installs once, updates in place, and goes before an existing hook, which keeps every line', () => {
    const block = hookBlock('app');
    const created = installHook(undefined, block);
    assert.equal(created.action, 'created');
    assert.ok(created.text.startsWith('#!/bin/sh\n'));
    assert.equal(installHook(created.text, block).action, 'unchanged');
    assert.equal(installHook(created.text, hookBlock('other')).action, 'updated');
    const foreign = '#!/usr/bin/env bash\nnpx lint-staged\n';
    const chained = installHook(foreign, block);
    assert.equal(chained.action, 'chained');
    assert.ok(chained.text.startsWith('#!/usr/bin/env bash\n# >>> repo-wiki drift check >>>'));
    assert.ok(chained.text.endsWith('npx lint-staged\n'));
  });

  it('blocks a real commit that breaks a citation, and lets an unrelated commit through', async () => {
    const { repo, folder } = demoRepo();
    const first = await installPreCommitHook(folder, CLI);
    assert.equal(first.action, 'created');
    assert.equal(first.path, path.join(repo, '.git', 'hooks', 'pre-commit'));
    assert.ok(fs.statSync(first.path).mode & 0o100, 'executable');
    assert.equal((await installPreCommitHook(folder, CLI)).action, 'unchanged');

    // An unrelated file: the check does not run.
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'hello\n');
    git(repo, 'add', 'app/notes.txt');
    const unrelated = git(repo, 'commit', '-m', 'notes');
    assert.equal(unrelated.status, 0, unrelated.stderr);
    assert.doesNotMatch(unrelated.stdout + unrelated.stderr, /citations in/);

    // Replacing a cited function by one with another name and code: the check runs and the commit is refused.
    const router = path.join(folder, 'src', 'router.ts');
    fs.writeFileSync(router, fs.readFileSync(router, 'utf8').replace(/\bsplitPath\b/g, 'toSegments').replace("path.split('?')[0]", "path.split('#')[0]"));
    git(repo, 'add', 'app/src/router.ts');
    const broken = git(repo, 'commit', '-m', 'replace splitPath');
    assert.notEqual(broken.status, 0);
    assert.match(broken.stdout + broken.stderr, /missing-symbol\s+src\/router\.ts:splitPath/);
    assert.match(broken.stderr, /the wiki has drift errors/);
    assert.equal(execFileSync('git', ['log', '--oneline'], { cwd: repo, encoding: 'utf8' }).trim().split('\n').length, 2, 'not committed');
  });

  it('leaves a hook in another language alone and says how to add the check', async () => {
    const python = '#!/usr/bin/env python3\nimport sys\nsys.exit(0)\n';
    assert.deepEqual(installHook(python, hookBlock('app')), { text: python, action: 'foreign', shebang: '#!/usr/bin/env python3' });
    assert.equal(installHook('#!/usr/bin/env -S bash -e\necho hi\n', hookBlock('app')).action, 'chained');
    assert.equal(installHook('#!/bin/zsh\necho hi\n', hookBlock('app')).action, 'chained');
    const { repo, folder } = demoRepo();
    const hook = path.join(repo, '.git', 'hooks', 'pre-commit');
    fs.writeFileSync(hook, python, { mode: 0o755 });
    await assert.rejects(installPreCommitHook(folder, CLI), (error: WikiError) => {
      assert.match(error.message, /not a shell script \(#!\/usr\/bin\/env python3\)/);
      assert.match(error.hint ?? '', /repo-wiki drift --format text.*Nothing was changed/);
      return true;
    });
    assert.equal(fs.readFileSync(hook, 'utf8'), python);
  });

  it('refuses a hook it cannot read instead of writing over it', async () => {
    const { repo, folder } = demoRepo();
    // As root, permissions stop no read: a folder where the hook should be does (EISDIR).
    const hook = path.join(repo, '.git', 'hooks', 'pre-commit');
    fs.mkdirSync(hook);
    fs.writeFileSync(path.join(hook, 'keep'), 'mine\n');
    const before = fs.readdirSync(path.dirname(hook)).sort();
    await assert.rejects(installPreCommitHook(folder, CLI), (error: WikiError) => {
      assert.match(error.message, /pre-commit exists but could not be read \(EISDIR.*\), so the drift check was not added to it\./);
      assert.match(error.hint ?? '', /Nothing was changed\./);
      return true;
    });
    assert.deepEqual(fs.readdirSync(path.dirname(hook)).sort(), before, 'no temp file beside it');
    assert.equal(fs.readFileSync(path.join(hook, 'keep'), 'utf8'), 'mine\n');
  });

  it('says so when the folder is not in a git repository', async () => {
    await assert.rejects(installPreCommitHook(tempDir('no-repo-')), /not inside a git repository/);
  });
});
