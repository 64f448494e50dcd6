import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorkspaceFiles } from '../../../src/adapters/files/workspaceFiles';
import { mayBeListed, WorkspaceSearch } from '../../../src/adapters/workspaceSearch';
import { tempDir } from '../../support/tempDirs';

// The module object itself: a test makes listing one folder fail as a disk or permission error would
// (as root, permissions stop no listing).
const nodeFs = require('node:fs') as typeof fs;

describe('WorkspaceSearch: folders it cannot list', () => {
  let readdir: typeof fs.promises.readdir;
  beforeEach(() => (readdir = nodeFs.promises.readdir));
  afterEach(() => (nodeFs.promises.readdir = readdir));

  function workspace(): string {
    const root = tempDir('repo-wiki-search-');
    for (const dir of ['src', 'private']) {
      fs.mkdirSync(path.join(root, dir));
      fs.writeFileSync(path.join(root, dir, 'cache.ts'), 'export class Cache {}\n');
    }
    return root;
  }

  /** Listing `failing` fails with `code`; every other folder lists as usual. */
  function failListing(failing: string, code: string): void {
    nodeFs.promises.readdir = (async (dir: string, options: unknown) => {
      if (dir === failing) throw Object.assign(new Error(`${code}: cannot list ${dir}`), { code });
      return readdir(dir, options as { withFileTypes: true });
    }) as typeof readdir;
  }

  it('skips a folder this user may not list, as a search tool does, and finds the rest', async () => {
    const root = workspace();
    failListing(path.join(root, 'private'), 'EACCES');
    assert.deepEqual(await new WorkspaceSearch(root, new WorkspaceFiles(root)).filesContaining('Cache'), ['src/cache.ts']);
  });

  it('fails on any other error listing a folder, rather than taking the folder for empty', async () => {
    const root = workspace();
    failListing(path.join(root, 'private'), 'EIO');
    const search = new WorkspaceSearch(root, new WorkspaceFiles(root));
    await assert.rejects(search.filesContaining('Cache'), /EIO: cannot list/);
    nodeFs.promises.readdir = readdir;
    assert.deepEqual(await search.filesContaining('Cache'), ['private/cache.ts', 'src/cache.ts'], 'a failed listing is not kept');
  });
});

describe('WorkspaceSearch: the listing', () => {
  let readdir: typeof fs.promises.readdir;
  beforeEach(() => (readdir = nodeFs.promises.readdir));
  afterEach(() => (nodeFs.promises.readdir = readdir));

  it('lists depth first in each folder\'s order, however late a folder listed ahead of the walk answers', async () => {
    const root = tempDir('repo-wiki-search-');
    for (const file of ['a/1.ts', 'a/x/2.py', 'a/y/3.go', 'b/4.rs', 'c.ts', 'node_modules/dep/5.ts']) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), '');
    }
    const asked: string[] = [];
    // Each folder's entries by name; the earlier a folder comes, the later its listing answers.
    nodeFs.promises.readdir = (async (dir: string, options: unknown) => {
      asked.push(path.relative(root, dir));
      const entries = await readdir(dir, options as { withFileTypes: true });
      await new Promise((settled) => setTimeout(settled, { '': 0, a: 40, 'a/x': 30, 'a/y': 20, b: 10 }[path.relative(root, dir)] ?? 0));
      return entries.sort((one, other) => (one.name < other.name ? -1 : 1));
    }) as typeof readdir;
    assert.deepEqual(await new WorkspaceSearch(root, new WorkspaceFiles(root)).sourceFiles(), ['a/1.ts', 'a/x/2.py', 'a/y/3.go', 'b/4.rs', 'c.ts']);
    assert.deepEqual(asked.sort(), ['', 'a', 'a/x', 'a/y', 'b'], 'every walked folder listed once; a skipped one never');
  });
});

describe('mayBeListed', () => {
  it('is false only for paths the listing never walks to: inside skipped or hidden folders, or a hidden file drift does not parse', () => {
    // A name that may be a folder's (README.md, once deleted, may have been one) may hold listed files.
    for (const listed of ['src/a.ts', 'src', 'lib/deep/er', 'py/util.py', '.eslintrc.js', 'src/.hidden.ts', 'README.md']) assert.equal(mayBeListed(listed), true, listed);
    for (const unlisted of ['node_modules/x/a.ts', 'node_modules', '.git/index.lock', '.git', 'dist/extension.js', 'src/out/a.ts', '.vscode/settings.json', '.env']) {
      assert.equal(mayBeListed(unlisted), false, unlisted);
    }
  });
});
