import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createDriftEngine } from '../../../../src/adapters/drift/driftCore';
import { openWorkspace } from '../../../../src/adapters/workspace';
import { DriftCode } from '../../../../src/core/drift/driftCodes';
import { FileAccessError } from '../../../../src/core/errors';
import { LintCode } from '../../../../src/core/lint/lintCodes';
import { MAX_SCHEMA_BYTES } from '../../../../src/core/wiki/wiki';
import { pageText } from '../../../support/fakes';

const DEMO = path.resolve(__dirname, '../../../../../demo');

/** A copy of the demo workspace beside an "outside" folder whose files must never change. */
function hostile() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-hostile-'));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'home');
  fs.cpSync(DEMO, root, { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, '.bashrc'), 'alias ll="ls -l"\n');
  fs.writeFileSync(path.join(outside, 'passwd'), 'root:x:0:0:CANARY-PASSWD:/root:/bin/bash\n');
  const at = (rel: string) => path.join(root, rel);
  const outsideSnapshot = () => Object.fromEntries(fs.readdirSync(outside).map((name) => [name, fs.readFileSync(path.join(outside, name), 'utf8')]));
  return { base, root, outside, at, outsideSnapshot, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

describe('a hostile workspace, through the Wiki and the drift engine', function () {
  this.timeout(20000);
  let box: ReturnType<typeof hostile>;
  beforeEach(() => (box = hostile()));
  afterEach(() => box.cleanup());

  it('leaves a FIFO page and a page linked out of the wiki out of the index, and lint names both', async () => {
    execFileSync('mkfifo', [box.at('.wiki/pages/fifo-page.md')]);
    fs.symlinkSync(path.join(box.outside, 'passwd'), box.at('.wiki/pages/passwd-link.md'));
    const { wiki } = openWorkspace(box.root);
    const { index } = await wiki.rebuildIndex();
    assert.deepEqual(index.pages.map((p) => p.slug).filter((s) => s.includes('fifo') || s.includes('passwd')), []);
    assert.doesNotMatch(fs.readFileSync(wiki.indexPath, 'utf8') + fs.readFileSync(wiki.indexMarkdownPath, 'utf8'), /CANARY|passwd-link|fifo-page/);
    const { issues } = await wiki.lint();
    const codeOf = (file: string) => issues.filter((i) => i.page === `.wiki/pages/${file}`).map((i) => i.code);
    assert.deepEqual(codeOf('fifo-page.md'), [LintCode.PageNotRegular]);
    assert.deepEqual(codeOf('passwd-link.md'), [LintCode.PageOutsideWiki]);
    assert.match(issues.find((i) => i.code === LintCode.PageNotRegular)!.message, /fifo-page\.md is a FIFO/);
  });

  it('refuses to append the log through a link to ~/.bashrc, and the file outside stays as it was', async () => {
    fs.rmSync(box.at('.wiki/log.jsonl'), { force: true });
    fs.symlinkSync(path.join(box.outside, '.bashrc'), box.at('.wiki/log.jsonl'));
    const before = box.outsideSnapshot();
    const { wiki } = openWorkspace(box.root);
    await assert.rejects(wiki.appendLog({ op: 'stamp', pages: [], citations: ['src/$(touch${IFS}/tmp/x).ts'] }), (e: unknown) => e instanceof FileAccessError && /log\.jsonl/.test(e.message));
    assert.deepEqual(box.outsideSnapshot(), before);
  });

  it('with pages/ linked out of the wiki: reads no page, writes none, and lint reports the folder', async () => {
    fs.rmSync(box.at('.wiki/pages'), { recursive: true });
    fs.writeFileSync(path.join(box.outside, 'stolen.md'), pageText('Stolen', 'CANARY-PASSWD\n'));
    fs.symlinkSync(box.outside, box.at('.wiki/pages'));
    const before = box.outsideSnapshot();
    const { wiki } = openWorkspace(box.root);
    assert.deepEqual(await wiki.loadPages(), []);
    const { issues } = await wiki.lint();
    assert.deepEqual(issues.map((i) => [i.page, i.code]), [['.wiki/pages', LintCode.PageOutsideWiki]]);
    await assert.rejects(wiki.createPage({ title: 'New' }), (e: unknown) => e instanceof FileAccessError && e.reason === 'link-outside');
    assert.deepEqual(box.outsideSnapshot(), before);
  });

  it('sends at most 32 KB of SCHEMA.md, and lint warns past that', async () => {
    fs.writeFileSync(box.at('.wiki/SCHEMA.md'), 'rule\n'.repeat(600_000)); // 3 MB
    const { wiki } = openWorkspace(box.root);
    assert.equal((await wiki.readSchema())!.length, MAX_SCHEMA_BYTES);
    const { issues } = await wiki.lint();
    assert.deepEqual(issues.filter((i) => i.code === LintCode.SchemaTooLarge).map((i) => [i.page, i.severity]), [['.wiki/SCHEMA.md', 'warning']]);
  });

  it('reports each unreadable cited file on its citation, and checks the rest', async () => {
    execFileSync('mkfifo', [box.at('src/fifo.ts')]);
    fs.symlinkSync('/dev/zero', box.at('src/zero.ts'));
    fs.symlinkSync(path.join(box.outside, 'passwd'), box.at('src/outside.ts'));
    const fd = fs.openSync(box.at('src/huge.ts'), 'w');
    fs.ftruncateSync(fd, 3 * 1024 ** 3);
    fs.closeSync(fd);
    const body = ['`src/fifo.ts`', '`src/zero.ts:x`', '`src/outside.ts`', '`src/huge.ts:Huge`', '`src/router.ts:Router`', '`src/gone.ts`'].join('\n\n');
    fs.writeFileSync(box.at('.wiki/pages/hostile-citations.md'), pageText('Hostile citations', `${body}\n`));
    const { wiki, files } = openWorkspace(box.root, { syncReads: true });
    const { engine } = createDriftEngine(box.root, files);
    const page = (await wiki.readPage('hostile-citations'))!;
    const started = Date.now();
    const report = await engine.check([page]);
    assert.ok(Date.now() - started < 5000, 'no hang');
    const codes = Object.fromEntries(report.issues.map((i) => [i.data.citation, i.code]));
    assert.deepEqual(codes, {
      'src/fifo.ts': DriftCode.UnreadableFile,
      'src/zero.ts:x': DriftCode.OutsideWorkspace,
      'src/outside.ts': DriftCode.OutsideWorkspace,
      'src/huge.ts:Huge': DriftCode.UnreadableFile,
      'src/router.ts:Router': DriftCode.Unverified,
      'src/gone.ts': DriftCode.MissingFile,
    });
    assert.match(report.issues.find((i) => i.data.citation === 'src/huge.ts:Huge')!.message, /src\/huge\.ts is 3\.0 GB/);
    await assert.rejects(engine.locate({ path: 'src/outside.ts' }), (e: unknown) => e instanceof FileAccessError && e.reason === 'link-outside');
  });

  it('two windows creating pages of the same title at once get two pages, both in the index', async () => {
    const [a, b] = [openWorkspace(box.root).wiki, openWorkspace(box.root).wiki];
    const created = await Promise.all([a.createPage({ title: 'Same title' }), b.createPage({ title: 'Same title' })]);
    assert.deepEqual(created.map((c) => c.slug).sort(), ['same-title', 'same-title-2']);
    const slugs = JSON.parse(fs.readFileSync(a.indexPath, 'utf8')).pages.map((p: { slug: string }) => p.slug);
    assert.ok(slugs.includes('same-title') && slugs.includes('same-title-2'), slugs.join(','));
  });
});
