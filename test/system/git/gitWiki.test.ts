import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SimpleGitWiki } from '../../../src/adapters/git/gitWiki';
import { WorkspaceFiles } from '../../../src/adapters/files/workspaceFiles';
import { readTemplate } from '../../../src/adapters/wikiTemplate';
import { commitWiki, prepareWikiCommit } from '../../../src/core/git/commitWiki';
import { WikiError } from '../../../src/core/errors';
import { Wiki } from '../../../src/core/wiki/wiki';
import { tempDir } from '../../support/tempDirs';

const TEMPLATE = path.resolve(__dirname, '../../../../wiki-template');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

function tempRepo(): string {
  const dir = tempDir('repo-wiki-git-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'test@example.com');
  git(dir, 'config', 'user.name', 'Test');
  return dir;
}

describe('committing the wiki with real git', function () {
  this.timeout(20000);

  it('commits only .wiki/ and leaves other staged and unstaged changes exactly as they were', async () => {
    const dir = tempRepo();
    fs.writeFileSync(path.join(dir, 'app.ts'), 'export const a = 1;\n');
    fs.writeFileSync(path.join(dir, 'other.ts'), 'export const o = 1;\n');
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'code');

    const wiki = new Wiki(dir, new WorkspaceFiles(dir), { now: () => new Date('2026-11-22T10:00:00Z') });
    await wiki.init(await readTemplate(TEMPLATE));
    await wiki.createPage({ title: 'Request pipeline', topic: 'architecture' });

    // The user's own work in progress: a staged edit, an unstaged edit on top, a new staged file, an untracked file.
    fs.writeFileSync(path.join(dir, 'app.ts'), 'export const a = 2;\n');
    git(dir, 'add', 'app.ts');
    fs.writeFileSync(path.join(dir, 'app.ts'), 'export const a = 3;\n');
    fs.writeFileSync(path.join(dir, 'staged-new.ts'), 'new\n');
    git(dir, 'add', 'staged-new.ts');
    fs.writeFileSync(path.join(dir, 'untracked.ts'), 'u\n');
    fs.writeFileSync(path.join(dir, 'other.ts'), 'export const o = 2;\n');
    const statusBefore = git(dir, 'status', '--porcelain', '--', '.', ':!.wiki');
    const stagedDiffBefore = git(dir, 'diff', '--cached', '--', '.', ':!.wiki');
    const unstagedDiffBefore = git(dir, 'diff', '--', '.', ':!.wiki');

    const gitWiki = new SimpleGitWiki(dir);
    const prepared = await prepareWikiCommit(wiki, gitWiki);
    assert.match(prepared.message, /^wiki: init, new-page \(\d+ pages?\)/);
    assert.ok(prepared.paths.some((p) => p.endsWith('.wiki/pages/request-pipeline.md')));
    const result = await commitWiki(wiki, gitWiki, prepared.message);

    const committed = git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort();
    assert.ok(committed.every((file) => file.startsWith('.wiki/')), committed.join(','));
    assert.ok(committed.includes('.wiki/pages/request-pipeline.md'));
    assert.ok(committed.includes('.wiki/log.jsonl'));
    assert.equal(git(dir, 'log', '-1', '--format=%s'), `${prepared.message.split('\n')[0]}\n`);
    assert.equal(result.commit, git(dir, 'rev-parse', 'HEAD').trim());

    assert.equal(git(dir, 'status', '--porcelain', '--', '.', ':!.wiki'), statusBefore);
    assert.equal(git(dir, 'diff', '--cached', '--', '.', ':!.wiki'), stagedDiffBefore);
    assert.equal(git(dir, 'diff', '--', '.', ':!.wiki'), unstagedDiffBefore);
    assert.equal(git(dir, 'status', '--porcelain', '--', '.wiki'), '', 'the wiki is clean after its commit');

    // The next message counts only what happened since this commit.
    await wiki.createPage({ title: 'Second', topic: 'patterns' });
    const next = await prepareWikiCommit(wiki, gitWiki);
    assert.match(next.message, /^wiki: new-page \(1 page\)\n\n- new-page: second\n$/);
  });

  it('commits page deletions and works in a repository with no commits yet', async () => {
    const dir = tempRepo();
    const wiki = new Wiki(dir, new WorkspaceFiles(dir), { now: () => new Date() });
    await wiki.init(await readTemplate(TEMPLATE));
    const gitWiki = new SimpleGitWiki(dir);
    await commitWiki(wiki, gitWiki, (await prepareWikiCommit(wiki, gitWiki)).message);
    fs.rmSync(path.join(dir, '.wiki/pages/how-to-write-pages.md'));
    const prepared = await prepareWikiCommit(wiki, gitWiki);
    assert.deepEqual(prepared.paths, ['.wiki/pages/how-to-write-pages.md']);
    await commitWiki(wiki, gitWiki, prepared.message);
    assert.equal(git(dir, 'ls-files', '.wiki/pages/how-to-write-pages.md'), '');
  });

  it('says clearly when the folder is not a git repository', async () => {
    const dir = tempDir('repo-wiki-nogit-');
    const wiki = new Wiki(dir, new WorkspaceFiles(dir), { now: () => new Date() });
    await wiki.init(await readTemplate(TEMPLATE));
    await assert.rejects(() => prepareWikiCommit(wiki, new SimpleGitWiki(dir)), (e: unknown) => e instanceof WikiError && /not inside a git repository.*git init/s.test(e.userMessage));
  });
});
