import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileAtCommit, filesChangedSince, pagesMentioning } from '../../../src/adapters/git/gitChanges';
import { SimpleGitWiki } from '../../../src/adapters/git/gitWiki';
import { MAX_COMPARED_BYTES } from '../../../src/core/text/boundedDiff';
import { tempDir } from '../../support/tempDirs';

function tempRepo(): string {
  const dir = tempDir('repo-wiki-changes-');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: dir });
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  write('src/a.py', 'def a():\n    pass\n');
  write('src/b.go', 'package b\n');
  write('.wiki/pages/cites-a.md', '---\ntitle: A\n---\n`src/a.py:a`\n');
  write('.wiki/pages/cites-b.md', '---\ntitle: B\n---\n`src/b.go`\n');
  write('notes.md', 'src/a.py is mentioned outside the wiki\n');
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'base');
  return dir;
}

describe('git changes for drift --changed-since', () => {
  it('finds the tracked pages mentioning changed paths as they are now, and nothing outside the pages folder', async () => {
    const dir = tempRepo();
    fs.appendFileSync(path.join(dir, '.wiki/pages/cites-b.md'), 'Now it cites `src/a.py` too.\n');
    const pagesDir = path.join(dir, '.wiki/pages');
    assert.deepEqual((await pagesMentioning(dir, pagesDir, ['src/a.py'])).sort(), ['cites-a', 'cites-b']);
    assert.deepEqual(await pagesMentioning(dir, pagesDir, ['src/b.go', 'src/none.rs']), ['cites-b']);
    assert.deepEqual(await pagesMentioning(dir, pagesDir, ['src/none.rs']), [], 'no page mentions it');
    assert.deepEqual(await pagesMentioning(dir, pagesDir, ['']), [], 'an empty pattern would match every page: it is dropped');
  });

  it('lists committed, uncommitted and untracked changes since a ref', async () => {
    const dir = tempRepo();
    fs.appendFileSync(path.join(dir, 'src/a.py'), '# edited\n');
    fs.writeFileSync(path.join(dir, 'src/c.rs'), 'fn c() {}\n');
    assert.deepEqual(await filesChangedSince(dir, 'main'), ['src/a.py', 'src/c.rs']);
    await assert.rejects(filesChangedSince(dir, 'no-such-branch'), /Git cannot compare with "no-such-branch"/);
  });

  it('says what to do when git cannot search', async () => {
    const dir = tempDir('repo-wiki-not-git-');
    await assert.rejects(pagesMentioning(dir, path.join(dir, '.wiki/pages'), ['src/a.py']), /git grep could not search \.wiki\/pages/);
  });

  it('reads a file at a commit, but only reports the size of one past the compare cap, never loading it', async function () {
    this.timeout(30000);
    const dir = tempRepo();
    const big = 'x'.repeat(MAX_COMPARED_BYTES + 10);
    fs.writeFileSync(path.join(dir, 'big.txt'), big);
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', 'big.txt'], { cwd: dir });
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'big'], { cwd: dir });
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
    assert.equal(await fileAtCommit(dir, head, 'src/a.py'), 'def a():\n    pass\n');
    assert.deepEqual(await fileAtCommit(dir, head, 'big.txt'), { tooLarge: big.length });
    assert.equal(await fileAtCommit(dir, head, 'src/none.py'), undefined, 'no such file then');
    assert.equal(await fileAtCommit(dir, 'deadbeef', 'src/a.py'), undefined, 'no such commit here');
    const blob = execFileSync('git', ['rev-parse', `${head}:big.txt`], { cwd: dir, encoding: 'utf8' }).trim();
    assert.deepEqual(await new SimpleGitWiki(dir).blobText(blob), { tooLarge: big.length });
  });
});
