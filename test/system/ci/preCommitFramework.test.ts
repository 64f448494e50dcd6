import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../support/tempDirs';

const ROOT = path.resolve(__dirname, '../../../..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const DEMO = path.join(ROOT, 'demo');

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** The demo project, its wiki included, as a repository with one commit. */
function demoRepo(): string {
  const repo = tempDir('repo-wiki-pre-commit-');
  fs.cpSync(DEMO, repo, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.email', 't@example.com');
  git(repo, 'config', 'user.name', 'T');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'demo');
  return repo;
}

/**
 * `pre-commit try-repo <this repository> HOOK` on the staged files, as a commit would run it. It
 * reads .pre-commit-hooks.yaml from a clone of this repository (uncommitted changes included);
 * REPO_WIKI_CLI points the hook at the CLI built here, since building one in that clone would need
 * the npm registry.
 */
function tryHook(repo: string, hook: string) {
  const result = spawnSync('pre-commit', ['try-repo', ROOT, hook, '--verbose'], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, PRE_COMMIT_HOME: tempDir('repo-wiki-pre-commit-home-'), REPO_WIKI_CLI: CLI },
  });
  assert.ok(!result.error, `pre-commit could not run (${result.error?.message}): install it (apt-get install pre-commit)`);
  return { code: result.status, output: result.stdout + result.stderr };
}

describe('the pre-commit framework hooks (.pre-commit-hooks.yaml)', function () {
  this.timeout(120000);

  it('repo-wiki-drift refuses a staged change that breaks a citation, and passes an unrelated one', () => {
    const repo = demoRepo();
    fs.writeFileSync(path.join(repo, 'NOTES.txt'), 'hello\n');
    git(repo, 'add', 'NOTES.txt');
    const unrelated = tryHook(repo, 'repo-wiki-drift');
    assert.equal(unrelated.code, 0, unrelated.output);
    assert.match(unrelated.output, /repo-wiki drift\.+Passed/);
    assert.match(unrelated.output, /0 citations in 0 pages checked/);

    const router = path.join(repo, 'src', 'router.ts');
    fs.writeFileSync(router, fs.readFileSync(router, 'utf8').replace(/\bsplitPath\b/g, 'toSegments').replace("path.split('?')[0]", "path.split('#')[0]"));
    git(repo, 'add', 'src/router.ts');
    const broken = tryHook(repo, 'repo-wiki-drift');
    assert.equal(broken.code, 1, broken.output);
    assert.match(broken.output, /repo-wiki drift\.+Failed/);
    assert.match(broken.output, /error\s+missing-symbol\s+src\/router\.ts:splitPath/);
  });

  it('repo-wiki-lint runs only when a wiki file is staged, and refuses a link to no page', () => {
    const repo = demoRepo();
    fs.writeFileSync(path.join(repo, 'NOTES.txt'), 'hello\n');
    git(repo, 'add', 'NOTES.txt');
    const skipped = tryHook(repo, 'repo-wiki-lint');
    assert.equal(skipped.code, 0, skipped.output);
    assert.match(skipped.output, /repo-wiki lint\.+\(no files to check\)Skipped/);

    const page = path.join(repo, '.wiki', 'pages', 'request-pipeline.md');
    fs.appendFileSync(page, '\nSee also [[no-such-page]].\n');
    git(repo, 'add', '.wiki');
    const broken = tryHook(repo, 'repo-wiki-lint');
    assert.equal(broken.code, 1, broken.output);
    assert.match(broken.output, /repo-wiki lint\.+Failed/);
    assert.match(broken.output, /no-such-page/);
  });
});
