import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import matter from 'gray-matter';
import { tempDir } from '../../support/tempDirs';

const ROOT = path.resolve(__dirname, '../../../..');
const DEMO = path.join(ROOT, 'demo');

interface ActionStep {
  run: string;
  shell: string;
  env: Record<string, string>;
}

/** action.yml's inputs and its one step (gray-matter's YAML reader, as a front matter block). */
function readAction(): { inputs: Record<string, { default: string }>; step: ActionStep } {
  const action = matter(`---\n${fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8')}\n---\n`).data as { inputs: Record<string, { default: string }>; runs: { using: string; steps: ActionStep[] } };
  assert.equal(action.runs.using, 'composite');
  assert.equal(action.runs.steps.length, 1);
  return { inputs: action.inputs, step: action.runs.steps[0] };
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A repository whose `main` has the demo project (and its wiki) in `app/`, and a `feature` branch made by `change`. */
function originWithFeature(change: (folder: string) => void): string {
  const origin = tempDir('repo-wiki-action-origin-');
  fs.cpSync(DEMO, path.join(origin, 'app'), { recursive: true });
  git(origin, 'init', '-q', '-b', 'main');
  git(origin, 'config', 'user.email', 't@example.com');
  git(origin, 'config', 'user.name', 'T');
  git(origin, 'add', '.');
  git(origin, 'commit', '-q', '-m', 'demo');
  git(origin, 'checkout', '-q', '-b', 'feature');
  change(path.join(origin, 'app'));
  git(origin, 'add', '-A');
  git(origin, 'commit', '-q', '-m', 'feature');
  return origin;
}

/** The checkout actions/checkout makes of the feature branch: with all history (fetch-depth: 0), or one commit deep (its default). */
function checkout(origin: string, depth: 'full' | 'shallow'): string {
  const work = path.join(tempDir('repo-wiki-action-work-'), 'repo');
  git(path.dirname(work), 'clone', '-q', ...(depth === 'shallow' ? ['--depth', '1'] : []), '--branch', 'feature', `file://${origin}`, work);
  return work;
}

/** Replaces a cited function by one with another name and code: a missing-symbol error. */
const replaceSplitPath = (folder: string) => {
  const router = path.join(folder, 'src', 'router.ts');
  fs.writeFileSync(router, fs.readFileSync(router, 'utf8').replace(/\bsplitPath\b/g, 'toSegments').replace("path.split('?')[0]", "path.split('#')[0]"));
};

/**
 * Runs the action's step as the runner does: its `run` line in bash, from the checkout, with the
 * variables GitHub sets and the step's `env` with the inputs put in (their defaults unless given).
 */
function runAction(work: string, github: { baseRef?: string; defaultBranch?: string }, inputs: Record<string, string> = {}) {
  const { inputs: declared, step } = readAction();
  const expressions: Record<string, string> = { 'github.event.repository.default_branch': github.defaultBranch ?? '' };
  for (const [name, input] of Object.entries(declared)) expressions[`inputs.${name}`] = inputs[name] ?? input.default;
  const stepEnv = Object.fromEntries(Object.entries(step.env).map(([key, value]) => [key, value.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, expression: string) => {
    assert.ok(expression in expressions, `action.yml uses \${{ ${expression} }}, which the test does not provide`);
    return expressions[expression];
  })]));
  // The runner's own variables, never those of a CI run this test may be inside.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GITHUB_') && !key.startsWith('REPO_WIKI_')));
  const env = { ...inherited, GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: work, GITHUB_ACTION_PATH: ROOT, GITHUB_BASE_REF: github.baseRef ?? '', GITHUB_EVENT_NAME: github.baseRef ? 'pull_request' : 'push', ...stepEnv };
  assert.equal(step.shell, 'bash');
  const result = spawnSync('bash', ['-e', '-c', step.run], { cwd: work, env, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the GitHub Action (action.yml, scripts/action/drift.mjs)', function () {
  this.timeout(120000);

  before(() => assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'cli.js')), 'build first (node esbuild.mjs): the action builds the CLI only when dist/cli.js is missing'));

  it('annotates the page whose citation a pull request breaks, at its path from the repository root, and fails', () => {
    const work = checkout(originWithFeature(replaceSplitPath), 'full');
    const result = runAction(work, { baseRef: 'main', defaultBranch: 'main' }, { workspace: 'app' });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /^::error file=app\/\.wiki\/pages\/router-trailing-slashes\.md,line=\d+,col=\d+,title=repo-wiki missing-symbol::.*splitPath/m);
    assert.match(result.stdout, /^repo-wiki drift since origin\/main: 1 error, /m);
  });

  it('fetches the history a shallow checkout lacks, says so, and still finds the break', () => {
    const work = checkout(originWithFeature(replaceSplitPath), 'shallow');
    const result = runAction(work, { baseRef: 'main' }, { workspace: 'app' });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /^::notice title=repo-wiki drift::The checkout is shallow; fetching its history/m);
    assert.match(result.stdout, /^::error file=app\/\.wiki\/pages\/router-trailing-slashes\.md,.*missing-symbol/m);
  });

  it('passes with no annotation when the change touches nothing a page cites (a push: the default branch is the base)', () => {
    const work = checkout(originWithFeature((folder) => fs.writeFileSync(path.join(folder, 'NOTES.txt'), 'hello\n')), 'full');
    const result = runAction(work, { defaultBranch: 'main' }, { workspace: 'app', semantic: 'true' });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.doesNotMatch(result.stdout, /^::(error|warning)/m);
    assert.match(result.stdout, /^repo-wiki drift since origin\/main: 0 errors, 0 warnings, 0 notices\.$/m);
  });

  it('fails with an error annotation that says what to do when there is no base to compare with', () => {
    const work = checkout(originWithFeature(replaceSplitPath), 'full');
    const noBase = runAction(work, { baseRef: 'no-such-branch' }, { workspace: 'app' });
    assert.equal(noBase.code, 2);
    assert.match(noBase.stdout, /^::error title=repo-wiki drift::This checkout has no "no-such-branch" to compare with, and it could not be fetched from origin\. Name a branch, tag or commit in the base-ref input\.$/m);
    const badInput = runAction(work, { baseRef: 'main' }, { workspace: 'app', semantic: 'yes' });
    assert.equal(badInput.code, 2);
    assert.match(badInput.stdout, /semantic is "yes"; it takes true or false/);
  });
});
