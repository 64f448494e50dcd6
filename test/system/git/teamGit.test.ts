import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SimpleGitWiki } from '../../../src/adapters/git/gitWiki';
import { WorkspaceFiles } from '../../../src/adapters/files/workspaceFiles';
import { readTemplate } from '../../../src/adapters/wikiTemplate';
import { parseLog } from '../../../src/core/wiki/log';
import { pageAgeTag, parsePageHistory } from '../../../src/core/pages/pageAge';
import { hasConflictMarkers } from '../../../src/core/text/text';
import { buildIndex, renderIndexJson, renderIndexMarkdown } from '../../../src/core/index/wikiIndex';
import { installMergeDriver } from '../../../src/adapters/git/gitHooks';
import type { WikiError } from '../../../src/core/errors';
import { Wiki } from '../../../src/core/wiki/wiki';
import { tempDir } from '../../support/tempDirs';

const TEMPLATE = path.resolve(__dirname, '../../../../wiki-template');
const CLI = path.resolve(__dirname, '../../../../dist/cli.js');

function git(cwd: string, args: string[], date?: string): string {
  const env = { ...process.env, ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}) };
  return execFileSync('git', args, { cwd, encoding: 'utf8', env });
}

function tempRepo(): string {
  const dir = tempDir('repo-wiki-team-');
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['config', 'user.email', 'test@example.com']);
  git(dir, ['config', 'user.name', 'Test']);
  return dir;
}

const wikiAt = (dir: string, iso = '2026-11-22T10:00:00Z') => new Wiki(dir, new WorkspaceFiles(dir), { now: () => new Date(iso) });
const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-11-22T12:00:00Z');

describe('page ages', () => {
  it('tags recently added, stable for N months, recently changed and unknown pages, with corroborations', () => {
    const ago = (days: number) => new Date(NOW.getTime() - days * DAY);
    assert.equal(pageAgeTag({ added: ago(3), changed: ago(1) }, NOW), 'recently added');
    assert.equal(pageAgeTag({ added: ago(200), changed: ago(95) }, NOW, 2), 'stable for 3 months (+2)');
    assert.equal(pageAgeTag({ added: ago(200), changed: ago(35) }, NOW), 'stable for 1 month');
    assert.equal(pageAgeTag({ added: ago(200), changed: ago(4) }, NOW), 'changed 4 days ago');
    assert.equal(pageAgeTag(undefined, NOW, 1), 'age unknown (+1)');
  });

  it('reads added and last-changed dates for every page from one git log of a real repository', async function () {
    this.timeout(20000);
    const dir = tempRepo();
    const wiki = wikiAt(dir);
    await wiki.init(await readTemplate(TEMPLATE));
    git(dir, ['add', '.']);
    git(dir, ['commit', '-q', '-m', 'wiki'], '2026-06-01T10:00:00Z');
    await wiki.createPage({ title: 'Old page' });
    git(dir, ['add', '.']);
    git(dir, ['commit', '-q', '-m', 'old page'], '2026-07-01T10:00:00Z');
    fs.appendFileSync(path.join(dir, '.wiki', 'pages', 'old-page.md'), '\nMore.\n');
    git(dir, ['commit', '-q', '-am', 'edit old page'], '2026-08-15T10:00:00Z');
    await wiki.createPage({ title: 'New page' });
    git(dir, ['add', '.']);
    git(dir, ['commit', '-q', '-m', 'new page'], '2026-11-20T10:00:00Z');

    const history = parsePageHistory(await new SimpleGitWiki(dir).pagesLog());
    assert.deepEqual(history.get('old-page'), { added: new Date('2026-07-01T10:00:00Z'), changed: new Date('2026-08-15T10:00:00Z') });
    assert.equal(pageAgeTag(history.get('old-page'), NOW), 'stable for 3 months');
    assert.equal(pageAgeTag(history.get('new-page'), NOW), 'recently added');
    assert.equal(history.has('welcome'), true);
    assert.equal(pageAgeTag(history.get('never-committed'), NOW), 'age unknown');
    assert.equal(await new SimpleGitWiki(tempDir('no-git-')).pagesLog(), '');
  });
});

describe('a wiki shared through git branches', function () {
  this.timeout(30000);

  async function twoBranches(topics: { alice: 'patterns' | 'gotchas'; bob: 'patterns' | 'gotchas' } = { alice: 'patterns', bob: 'gotchas' }) {
    const dir = tempRepo();
    const wiki = wikiAt(dir);
    await wiki.init(await readTemplate(TEMPLATE));
    git(dir, ['add', '.']);
    git(dir, ['commit', '-q', '-m', 'wiki']);
    git(dir, ['checkout', '-q', '-b', 'alice']);
    await wikiAt(dir, '2026-11-22T10:00:00Z').createPage({ title: 'Caching', topic: topics.alice });
    git(dir, ['add', '.']);
    git(dir, ['commit', '-q', '-m', 'alice: caching']);
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['checkout', '-q', '-b', 'bob']);
    await wikiAt(dir, '2026-11-22T11:00:00Z').createPage({ title: 'Retries', topic: topics.bob });
    git(dir, ['add', '.']);
    git(dir, ['commit', '-q', '-m', 'bob: retries']);
    return { dir, wiki };
  }

  it('merges two branches that each add a page with no conflict at all once the index merge driver is installed', async () => {
    const { dir, wiki } = await twoBranches({ alice: 'patterns', bob: 'patterns' }); // adjacent lines in index.md: git's text merge conflicts here
    const result = await installMergeDriver(dir, CLI);
    assert.deepEqual(result, { driver: 'installed', attributes: 'present' }, 'the template names the driver already');
    assert.deepEqual(await installMergeDriver(dir, CLI), { driver: 'unchanged', attributes: 'present' });
    git(dir, ['checkout', '-q', 'alice']);
    const merge = spawnSync('git', ['merge', '--no-edit', 'bob'], { cwd: dir, encoding: 'utf8' });
    assert.equal(merge.status, 0, merge.stdout + merge.stderr);
    assert.equal(git(dir, ['status', '--porcelain']).trim(), '', 'merged and committed, nothing left to resolve');
    const pages = await wiki.loadPages();
    assert.deepEqual(pages.map((page) => page.slug), ['caching', 'how-to-write-pages', 'retries', 'welcome']);
    // The merged catalog is exactly what regenerating it from the merged pages gives.
    const index = buildIndex(pages);
    assert.equal(fs.readFileSync(path.join(dir, '.wiki', 'index.json'), 'utf8'), renderIndexJson(index));
    assert.equal(fs.readFileSync(path.join(dir, '.wiki', 'index.md'), 'utf8'), renderIndexMarkdown(index));
    assert.equal((await wiki.rebuildIndex()).changed, false);
  });

  it('adds the driver to the .gitattributes of a wiki made before it existed', async () => {
    const dir = tempRepo();
    await wikiAt(dir).init(await readTemplate(TEMPLATE));
    const attributes = path.join(dir, '.wiki', '.gitattributes');
    fs.writeFileSync(attributes, 'log.jsonl merge=union\n');
    assert.deepEqual(await installMergeDriver(dir, CLI), { driver: 'installed', attributes: 'added' });
    assert.match(fs.readFileSync(attributes, 'utf8'), /^log\.jsonl merge=union\n#.*\nindex\.json merge=repo-wiki-index\nindex\.md merge=repo-wiki-index\n\n#.*\npages\/\*\.md merge=repo-wiki-page\n$/);
    assert.equal(git(dir, ['check-attr', 'merge', '.wiki/index.md']).trim(), '.wiki/index.md: merge: repo-wiki-index');
    assert.equal(git(dir, ['check-attr', 'merge', '.wiki/pages/welcome.md']).trim(), '.wiki/pages/welcome.md: merge: repo-wiki-page');
  });

  it('refuses a .gitattributes it cannot read, configuring nothing and writing nothing over it', async () => {
    const dir = tempRepo();
    // As root, permissions stop no read: a folder where the file should be does (EISDIR).
    const attributes = path.join(dir, '.wiki', '.gitattributes');
    fs.mkdirSync(attributes, { recursive: true });
    await assert.rejects(installMergeDriver(dir, CLI), (error: WikiError) => {
      assert.match(error.message, /\.gitattributes exists but could not be read \(EISDIR.*\), so the merge driver was not installed\./);
      assert.match(error.hint ?? '', /Nothing was changed\./);
      return true;
    });
    assert.equal(spawnSync('git', ['config', '--get', 'merge.repo-wiki-index.driver'], { cwd: dir }).status, 1, 'not configured');
    assert.deepEqual(fs.readdirSync(path.join(dir, '.wiki')), ['.gitattributes'], 'no temp file');
  });

  it('without the driver, merges two branches that each add a page: the log keeps both lines (merge=union), and the index is regenerated', async () => {
    const { dir, wiki } = await twoBranches();
    git(dir, ['checkout', '-q', 'alice']);
    const merge = spawnSync('git', ['merge', '--no-edit', 'bob'], { cwd: dir, encoding: 'utf8' });
    const conflicted = git(dir, ['diff', '--name-only', '--diff-filter=U']).trim().split('\n').filter(Boolean);
    // Both branches rewrote the generated index; the log and the pages merge on their own.
    assert.deepEqual(conflicted.filter((file) => !/^\.wiki\/index\.(json|md)$/.test(file)), [], merge.stdout + merge.stderr);
    const log = parseLog(fs.readFileSync(path.join(dir, '.wiki', 'log.jsonl'), 'utf8'));
    assert.equal(log.skipped, 0);
    const created = log.entries.filter((entry) => entry.op === 'new-page').map((entry) => entry.pages?.[0]).sort();
    assert.deepEqual(created, ['caching', 'retries']);
    assert.ok(fs.existsSync(path.join(dir, '.wiki', 'pages', 'caching.md')) && fs.existsSync(path.join(dir, '.wiki', 'pages', 'retries.md')));

    const { index, repaired } = await wiki.loadIndex();
    if (conflicted.length) assert.equal(repaired, 'conflict');
    assert.deepEqual(index.pages.map((page) => page.slug).sort(), ['caching', 'how-to-write-pages', 'retries', 'welcome']);
    for (const file of ['index.json', 'index.md']) assert.equal(hasConflictMarkers(fs.readFileSync(path.join(dir, '.wiki', file), 'utf8')), false, file);
    git(dir, ['add', '.']);
    git(dir, ['commit', '-q', '--no-edit']);
    assert.equal(git(dir, ['status', '--porcelain']).trim(), '');
  });

  it('regenerates an index both branches edited by hand into a conflict', async () => {
    const { dir, wiki } = await twoBranches();
    git(dir, ['checkout', '-q', 'alice']);
    fs.writeFileSync(path.join(dir, '.wiki', 'index.json'), '{"hand": "edited by alice"}\n');
    git(dir, ['commit', '-q', '-am', 'alice edits the index']);
    git(dir, ['checkout', '-q', 'bob']);
    fs.writeFileSync(path.join(dir, '.wiki', 'index.json'), '{"hand": "edited by bob"}\n');
    git(dir, ['commit', '-q', '-am', 'bob edits the index']);
    const merge = spawnSync('git', ['merge', '--no-edit', 'alice'], { cwd: dir, encoding: 'utf8' });
    assert.notEqual(merge.status, 0, 'the merge conflicts');
    assert.ok(hasConflictMarkers(fs.readFileSync(path.join(dir, '.wiki', 'index.json'), 'utf8')));
    const { index, repaired } = await wiki.loadIndex();
    assert.equal(repaired, 'conflict');
    assert.deepEqual(index.pages.map((page) => page.slug).sort(), ['caching', 'how-to-write-pages', 'retries', 'welcome']);
    assert.equal(hasConflictMarkers(fs.readFileSync(path.join(dir, '.wiki', 'index.json'), 'utf8')), false);
  });
});
