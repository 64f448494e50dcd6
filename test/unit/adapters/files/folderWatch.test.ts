import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { watchFolder, type FolderWatch } from '../../../../src/adapters/files/folderWatch';

describe('watchFolder', () => {
  let dir: string;
  let watch: FolderWatch | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-watch-'));
  });
  afterEach(() => {
    watch?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const nextChange = (changes: string[]) => new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (changes.length) return clearInterval(poll), resolve();
      if (Date.now() - started > 5000) return clearInterval(poll), reject(new Error('no change reported in 5 s'));
    }, 10);
  });

  it('reports a file written into a folder made just before, by its full path', async () => {
    const pages = path.join(dir, 'pages');
    fs.mkdirSync(pages);
    const changes: string[] = [];
    watch = watchFolder(pages, (file) => changes.push(file), (error) => assert.fail(error));
    assert.ok(watch);
    fs.writeFileSync(path.join(pages, 'a.md'), 'x');
    await nextChange(changes);
    assert.equal(changes[0], path.join(pages, 'a.md'));
  });

  it('closes itself when the folder is removed, so a new watch can be made', async () => {
    const pages = path.join(dir, 'pages');
    fs.mkdirSync(pages);
    const changes: string[] = [];
    watch = watchFolder(pages, (file) => changes.push(file), () => undefined);
    fs.rmSync(pages, { recursive: true });
    await nextChange(changes);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(watch?.closed, true);
  });

  it('watches nothing that is missing, a file, or a link to a folder', () => {
    fs.writeFileSync(path.join(dir, 'file'), '');
    fs.symlinkSync(os.tmpdir(), path.join(dir, 'link'));
    for (const name of ['missing', 'file', 'link']) {
      assert.equal(watchFolder(path.join(dir, name), () => assert.fail('no change expected'), (error) => assert.fail(error)), undefined, name);
    }
  });

  // As root, permissions do not stop lstat; a path through a link to itself (ELOOP) is an error no user escapes.
  it('says why when a folder cannot be looked at, rather than taking it for missing', () => {
    fs.symlinkSync(path.join(dir, 'loop'), path.join(dir, 'loop'));
    const errors: Error[] = [];
    assert.equal(watchFolder(path.join(dir, 'loop', 'pages'), () => assert.fail('no change expected'), (error) => errors.push(error)), undefined);
    assert.deepEqual(errors.map((error) => (error as NodeJS.ErrnoException).code), ['ELOOP']);
  });

  it('closes itself and says why when the folder cannot be looked at any more', async () => {
    const pages = path.join(dir, 'wiki', 'pages');
    fs.mkdirSync(pages, { recursive: true });
    const changes: string[] = [];
    const errors: Error[] = [];
    watch = watchFolder(pages, (file) => changes.push(file), (error) => errors.push(error));
    // The watched folder lives on under another name; its old path now runs through a link to itself.
    fs.renameSync(path.join(dir, 'wiki'), path.join(dir, 'moved'));
    fs.symlinkSync(path.join(dir, 'wiki'), path.join(dir, 'wiki'));
    fs.writeFileSync(path.join(dir, 'moved', 'pages', 'a.md'), 'x');
    await nextChange(changes);
    assert.equal(watch?.closed, true);
    assert.deepEqual(errors.map((error) => (error as NodeJS.ErrnoException).code), ['ELOOP']);
  });
});
