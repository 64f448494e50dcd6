import * as assert from 'node:assert/strict';
import { followMovedPage, planRename, renamePage, retargetPageText } from '../../../../src/core/authoring';
import { WikiError } from '../../../../src/core/errors';
import { planLintFixes } from '../../../../src/core/lint/lintFix';
import { lintPages } from '../../../../src/core/lint/lint';
import { LintCode } from '../../../../src/core/lint/lintCodes';
import { Wiki } from '../../../../src/core/wiki/wiki';
import { fixedClock, MemoryFileSystem, pageText } from '../../../support/fakes';

const ROOT = '/ws';
const PAGES = '/ws/.wiki/pages';

/** A file system whose page writes start failing after `budget` of them: a crash halfway through. */
class CrashingFileSystem extends MemoryFileSystem {
  budget = Infinity;

  override async writeFileAtomic(file: string, data: string): Promise<void> {
    if (file.startsWith(PAGES) && this.budget-- <= 0) throw new Error('crash');
    return super.writeFileAtomic(file, data);
  }

  override async remove(file: string): Promise<boolean> {
    if (this.budget-- <= 0) throw new Error('crash');
    return super.remove(file);
  }
}

function setup(fs = new MemoryFileSystem()) {
  const page = (slug: string, title: string, body: string, fields: Record<string, string> = {}) => fs.write(`${PAGES}/${slug}.md`, pageText(title, body, fields));
  page('old', 'Old', 'I am [[old]].\n');
  page('a', 'A', 'See [[old]], [[old|the old page]] and [[old#Intro]].\n`[[old]]` stays, so does the word old.\n\n```\n[[old]]\n```\n');
  page('b', 'B', 'Nothing here but [[a]].\n', { status: 'superseded', superseded_by: 'old' });
  page('c', 'C', 'Links [[a]] only.\n');
  fs.write('/ws/.wiki/log.jsonl', '');
  return { fs, wiki: new Wiki(ROOT, fs, fixedClock()) };
}

const brokenLinks = async (wiki: Wiki) => lintPages(await wiki.loadPages()).filter((issue) => issue.code === LintCode.BrokenLink || issue.code === LintCode.SupersededByMissing);

describe('renamePage', () => {
  it('moves the page and every [[link]], label and heading link to it; code and plain words stay', async () => {
    const { fs, wiki } = setup();
    const result = await renamePage(wiki, 'old', 'new-name');
    assert.deepEqual(result, { from: 'old', to: 'new-name', updated: ['a', 'b'], links: 3 });
    assert.equal(fs.text(`${PAGES}/old.md`), undefined);
    assert.match(fs.text(`${PAGES}/new-name.md`)!, /I am \[\[new-name\]\]\./);
    const a = fs.text(`${PAGES}/a.md`)!;
    assert.match(a, /See \[\[new-name\]\], \[\[new-name\|the old page\]\] and \[\[new-name#Intro\]\]\./);
    assert.match(a, /`\[\[old\]\]` stays, so does the word old\./);
    assert.match(a, /```\n\[\[old\]\]\n```/);
    assert.match(fs.text(`${PAGES}/b.md`)!, /^superseded_by: new-name$/m);
    assert.equal(fs.text(`${PAGES}/c.md`), pageText('C', 'Links [[a]] only.\n'), 'a page without links to it is not rewritten');
    assert.deepEqual(await brokenLinks(wiki), []);
  });

  it('rebuilds the index and logs one rename line', async () => {
    const { fs, wiki } = setup();
    await renamePage(wiki, 'old', 'new-name');
    const index = JSON.parse(fs.text('/ws/.wiki/index.json')!);
    assert.deepEqual(index.pages.map((p: { slug: string }) => p.slug), ['a', 'b', 'c', 'new-name']);
    const log = fs.text('/ws/.wiki/log.jsonl')!.trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(log.map((entry) => [entry.op, entry.from, entry.to, entry.updated]), [['rename', 'old', 'new-name', ['a', 'b']]]);
  });

  it('refuses an invalid or taken slug, and a missing page, with a clear message and no change', async () => {
    const { fs, wiki } = setup();
    const before = new Map(fs.files);
    await assert.rejects(renamePage(wiki, 'old', 'Bad Name'), (error: WikiError) => error.code === 'invalid-slug' && /not a valid page slug/.test(error.message));
    await assert.rejects(renamePage(wiki, 'old', 'a'), (error: WikiError) => /A page called "a" already exists/.test(error.message));
    await assert.rejects(renamePage(wiki, 'missing', 'fresh'), (error: WikiError) => /There is no page "missing"/.test(error.message));
    assert.deepEqual(fs.files, before);
  });

  it('never leaves a link to nothing when it is interrupted at any step, and the same rename then resumes', async () => {
    for (let budget = 0; budget <= 3; budget++) {
      const fs = new CrashingFileSystem();
      const { wiki } = setup(fs);
      fs.budget = budget;
      await assert.rejects(renamePage(wiki, 'old', 'new-name'), /crash/);
      assert.deepEqual(await brokenLinks(wiki), [], `crash after ${budget} writes`);
      fs.budget = Infinity;
      await renamePage(wiki, 'old', 'new-name');
      assert.equal(fs.text(`${PAGES}/old.md`), undefined);
      assert.deepEqual(await brokenLinks(wiki), [], `resumed after ${budget} writes`);
    }
  });

  it('plans without writing: which pages change and how', async () => {
    const { fs, wiki } = setup();
    const before = new Map(fs.files);
    const plan = await planRename(wiki, 'old', 'new-name');
    assert.deepEqual(plan.linking.map((edit) => [edit.slug, edit.links]), [['a', 3], ['b', 0]]);
    assert.deepEqual(fs.files, before);
  });
});

describe('followMovedPage', () => {
  it('points the links at a page file someone else moved, and logs it', async () => {
    const { fs, wiki } = setup();
    fs.write(`${PAGES}/moved.md`, fs.text(`${PAGES}/old.md`)!);
    fs.files.delete(`${PAGES}/old.md`);
    const result = await followMovedPage(wiki, 'old', 'moved');
    assert.deepEqual(result.updated, ['a', 'b', 'moved']);
    assert.deepEqual(await brokenLinks(wiki), []);
    assert.match(fs.text('/ws/.wiki/log.jsonl')!, /"op":"rename".*"via":"file-move"/);
  });

  it('leaves links alone when the new file name is not a slug', async () => {
    const { wiki } = setup();
    await assert.rejects(followMovedPage(wiki, 'old', 'My Page'), /not a valid page file name/);
  });
});

describe('retargetPageText', () => {
  it('keeps CRLF line endings and every other byte', () => {
    const text = pageText('A', 'x [[old]] y\n').replace(/\n/g, '\r\n');
    assert.equal(retargetPageText(text, 'old', 'new', 'a').text, text.replace('[[old]]', '[[new]]'));
  });
});

describe('lint --fix after a rename', () => {
  it('does not turn a link to the renamed page (merged in later) into plain text', async () => {
    const { fs, wiki } = setup();
    fs.write('/ws/.wiki/log.jsonl', '{"ts":"2026-11-01T00:00:00Z","op":"new-page","pages":["old","gone"]}\n');
    await renamePage(wiki, 'old', 'new-name');
    fs.write(`${PAGES}/late.md`, pageText('Late', 'From another branch: [[old]] and [[gone]].\n'));
    const plan = await planLintFixes(wiki, await wiki.loadPages(), { pagesChecked: 0, citationsChecked: 0, issues: [] });
    assert.deepEqual(plan.unlinked, [{ slug: 'late', targets: ['gone'] }]);
  });
});
