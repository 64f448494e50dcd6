import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorkspaceFiles } from '../../../../src/adapters/files/workspaceFiles';
import { FileAccessError, WikiError } from '../../../../src/core/errors';

/** A workspace folder and a folder outside it, removed after each test. */
function sandbox() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-files-'));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(root, '.wiki', 'pages'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'bashrc'), 'export SENTINEL=1\n');
  return { base, root, outside, at: (rel: string) => path.join(root, rel), cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

const refused = (reason: FileAccessError['reason'], name: RegExp) => (error: unknown) =>
  error instanceof FileAccessError && error.reason === reason && name.test(error.message);

describe('WorkspaceFiles (the one module for file access)', function () {
  this.timeout(10000);
  let box: ReturnType<typeof sandbox>;
  beforeEach(() => (box = sandbox()));
  afterEach(() => box.cleanup());

  for (const syncReads of [false, true]) {
    describe(syncReads ? 'blocking reads (worker, CLI)' : 'thread-pool reads (extension host)', () => {
      const files = () => new WorkspaceFiles(box.root, { syncReads });

      it('reads regular files, and links that stay inside the scope', async () => {
        fs.writeFileSync(box.at('src.ts'), 'export const a = 1;\n');
        fs.symlinkSync('src.ts', box.at('alias.ts'));
        assert.equal(new TextDecoder().decode(await files().readFile(box.at('alias.ts'))), 'export const a = 1;\n');
        await assert.rejects(files().readFile(box.at('missing.ts')), (e: NodeJS.ErrnoException) => e.code === 'ENOENT');
      });

      it('names a settled file\'s version, the same until it is written: by the read that read it, and by a stat', async () => {
        const file = box.at('.wiki/pages/a.md');
        const minuteAgo = new Date(Date.now() - 60_000);
        fs.writeFileSync(file, 'one\n');
        assert.equal((await files().readVersioned(file)).version, undefined, 'just written: a write in the same tick could keep its time and size');
        fs.utimesSync(file, minuteAgo, minuteAgo);
        const { bytes, version } = await files().readVersioned(file);
        assert.equal(new TextDecoder().decode(bytes), 'one\n');
        assert.ok(version);
        assert.equal((await files().stat(file))?.version, version);
        await new Promise((resolve) => setTimeout(resolve, 50));
        fs.writeFileSync(file, 'two\n');
        fs.utimesSync(file, minuteAgo, minuteAgo); // the same size and time: the status change time still tells
        assert.notEqual((await files().stat(file))?.version, version);
      });

      it('refuses a FIFO at once, without blocking on it', async () => {
        execFileSync('mkfifo', [box.at('pipe.ts')]);
        const started = Date.now();
        await assert.rejects(files().readFile(box.at('pipe.ts')), refused('not-regular', /pipe\.ts is a FIFO/));
        assert.ok(Date.now() - started < 1000);
      });

      it('refuses a device, inside the workspace or through a link', async () => {
        execFileSync('mknod', [box.at('null.ts'), 'c', '1', '3']);
        await assert.rejects(files().readFile(box.at('null.ts')), refused('not-regular', /null\.ts is a character device/));
        fs.symlinkSync('/dev/zero', box.at('zero.ts'));
        await assert.rejects(files().readFile(box.at('zero.ts')), refused('link-outside', /zero\.ts .*leads out of the workspace folder/));
      });

      it('refuses a file over the cap before reading it, naming the file; truncates when asked', async () => {
        const fd = fs.openSync(box.at('huge.ts'), 'w');
        fs.ftruncateSync(fd, 3 * 1024 ** 3); // sparse: no disk used
        fs.closeSync(fd);
        await assert.rejects(files().readFile(box.at('huge.ts')), refused('too-large', /huge\.ts is 3\.0 GB, over the 16\.0 MB/));
        fs.writeFileSync(box.at('long.md'), 'x'.repeat(100));
        assert.equal((await files().readFile(box.at('long.md'), { maxBytes: 10, truncate: true })).length, 10);
      });

      it('refuses links that lead out: a file, a parent folder, the scope folder itself', async () => {
        fs.symlinkSync(path.join(box.outside, 'bashrc'), box.at('.wiki/pages/passwd.md'));
        await assert.rejects(files().readFile(box.at('.wiki/pages/passwd.md'), { within: box.at('.wiki') }), refused('link-outside', /\.wiki\/pages\/passwd\.md .*leads out of \.wiki/));
        fs.symlinkSync(box.outside, box.at('linked'));
        await assert.rejects(files().readFile(box.at('linked/bashrc')), refused('link-outside', /linked\/bashrc/));
        fs.rmSync(box.at('.wiki'), { recursive: true });
        fs.symlinkSync(box.outside, box.at('.wiki'));
        await assert.rejects(files().readFile(box.at('.wiki/bashrc'), { within: box.at('.wiki') }), refused('link-outside', /\.wiki .*leads out of the workspace folder/));
      });

      it('refuses paths outside the workspace, .git internals and secret-looking names', async () => {
        await assert.rejects(files().readFile(path.join(box.outside, 'bashrc')), refused('outside', /outside the workspace/));
        await assert.rejects(files().readFile(box.at('../outside/bashrc')), refused('outside', /outside the workspace/));
        fs.mkdirSync(box.at('.git'));
        fs.writeFileSync(box.at('.git/config'), '[core]\n');
        fs.writeFileSync(box.at('.env'), 'TOKEN=1\n');
        await assert.rejects(files().readFile(box.at('.git/config')), refused('secret', /\.git\/config is inside \.git/));
        await assert.rejects(files().readFile(box.at('.env')), refused('secret', /\.env is named like a file that holds secrets/));
      });
    });
  }

  describe('writes', () => {
    const files = () => new WorkspaceFiles(box.root);
    const wiki = () => box.at('.wiki');

    it('write atomically, leaving no temp file', async () => {
      await files().writeFileAtomic(box.at('.wiki/pages/a.md'), 'one', { within: wiki() });
      await files().writeFileAtomic(box.at('.wiki/pages/a.md'), 'two', { within: wiki() });
      assert.equal(fs.readFileSync(box.at('.wiki/pages/a.md'), 'utf8'), 'two');
      assert.deepEqual(fs.readdirSync(box.at('.wiki/pages')), ['a.md']);
    });

    it('report a failed write with the path and what to do', async () => {
      await assert.rejects(files().writeFileAtomic(box.at('.wiki/none/a.md'), 'x'), (e: unknown) => e instanceof WikiError && /Cannot write \.wiki\/none\/a\.md.*Nothing was changed/s.test(e.userMessage));
    });

    it('never write into a pages folder that is a link out, and never create folders through one', async () => {
      fs.rmSync(box.at('.wiki/pages'), { recursive: true });
      fs.symlinkSync(box.outside, box.at('.wiki/pages'));
      await assert.rejects(files().writeFileAtomic(box.at('.wiki/pages/x.md'), 'x', { within: wiki() }), refused('link-outside', /\.wiki\/pages\/x\.md/));
      await assert.rejects(files().mkdir(box.at('.wiki/pages/sub'), { within: wiki() }), refused('link-outside', /\.wiki\/pages/));
      await assert.rejects(files().readdir(box.at('.wiki/pages'), { within: wiki() }), refused('link-outside', /\.wiki\/pages/));
      assert.deepEqual(fs.readdirSync(box.outside), ['bashrc']);
    });

    it('never write or append through a link: the log as a link to ~/.bashrc stays untouched', async () => {
      fs.symlinkSync(path.join(box.outside, 'bashrc'), box.at('.wiki/log.jsonl'));
      await assert.rejects(files().appendFile(box.at('.wiki/log.jsonl'), '{"op":"$(touch /tmp/x)"}\n', { within: wiki() }), refused('symlink', /\.wiki\/log\.jsonl is a symbolic link/));
      await assert.rejects(files().writeFileAtomic(box.at('.wiki/log.jsonl'), 'x', { within: wiki() }), refused('symlink', /never writes through a link/));
      fs.symlinkSync('log.jsonl', box.at('.wiki/inner.jsonl')); // even a link that stays inside
      await assert.rejects(files().appendFile(box.at('.wiki/inner.jsonl'), 'x\n', { within: wiki() }), refused('symlink', /inner\.jsonl/));
      assert.equal(fs.readFileSync(path.join(box.outside, 'bashrc'), 'utf8'), 'export SENTINEL=1\n');
    });

    it('refuse a FIFO as a write or append target without blocking', async () => {
      execFileSync('mkfifo', [box.at('.wiki/log.jsonl')]);
      await assert.rejects(files().appendFile(box.at('.wiki/log.jsonl'), 'x\n', { within: wiki() }), refused('not-regular', /log\.jsonl is a FIFO/));
      await assert.rejects(files().writeFileAtomic(box.at('.wiki/log.jsonl'), 'x', { within: wiki() }), refused('not-regular', /log\.jsonl is a FIFO/));
    });

    it('append one whole line per call', async () => {
      await Promise.all(Array.from({ length: 20 }, (_, i) => files().appendFile(box.at('.wiki/log.jsonl'), `${JSON.stringify({ i, pad: 'x'.repeat(500) })}\n`, { within: wiki() })));
      const lines = fs.readFileSync(box.at('.wiki/log.jsonl'), 'utf8').trim().split('\n');
      assert.equal(lines.length, 20);
      for (const line of lines) JSON.parse(line);
    });
  });

  describe('the write lock', () => {
    const lock = () => box.at('.wiki/.cache/write.lock');

    it('lets one holder in at a time, in one instance and across instances (two windows)', async () => {
      const events: string[] = [];
      const shared = new WorkspaceFiles(box.root);
      const work = (name: string, files: WorkspaceFiles) => files.withLock(lock(), async () => {
        events.push(`${name}+`);
        await new Promise((resolve) => setTimeout(resolve, 30));
        events.push(`${name}-`);
      });
      await Promise.all([work('a', shared), work('b', shared), work('c', new WorkspaceFiles(box.root)), work('d', new WorkspaceFiles(box.root))]);
      for (let i = 0; i < events.length; i += 2) assert.equal(events[i][0], events[i + 1][0], events.join(' '));
      assert.equal(fs.existsSync(lock()), false, 'released');
    });

    it('takes over the lock of a process that died', async () => {
      fs.mkdirSync(path.dirname(lock()), { recursive: true });
      fs.writeFileSync(lock(), JSON.stringify({ pid: 2 ** 22 + 12345, host: os.hostname(), acquired: new Date().toISOString(), nonce: 'dead' }));
      assert.equal(await new WorkspaceFiles(box.root).withLock(lock(), async () => 'ran'), 'ran');
    });

    it('refuses a lock file that is a link or a FIFO (a clone can carry one), changing nothing', async () => {
      fs.mkdirSync(path.dirname(lock()), { recursive: true });
      fs.symlinkSync(path.join(box.outside, 'bashrc'), lock());
      await assert.rejects(new WorkspaceFiles(box.root).withLock(lock(), async () => 'ran'), refused('symlink', /write\.lock, the wiki's write lock, is a symbolic link/));
      fs.rmSync(lock());
      execFileSync('mkfifo', [lock()]);
      await assert.rejects(new WorkspaceFiles(box.root).withLock(lock(), async () => 'ran'), refused('not-regular', /write\.lock, the wiki's write lock, is not a small regular file/));
      assert.equal(fs.readFileSync(path.join(box.outside, 'bashrc'), 'utf8'), 'export SENTINEL=1\n');
    });

    it('gives up on a live holder after the wait, saying who holds it and what to do', async () => {
      fs.mkdirSync(path.dirname(lock()), { recursive: true });
      fs.writeFileSync(lock(), JSON.stringify({ pid: process.pid, host: os.hostname(), acquired: new Date().toISOString(), nonce: 'other' }));
      await assert.rejects(new WorkspaceFiles(box.root, { lockWaitMs: 100 }).withLock(lock(), async () => 'ran'), (e: unknown) =>
        e instanceof WikiError && e.code === 'wiki-busy' && /held by process \d+/.test(e.message) && /delete \.wiki\/\.cache\/write\.lock/.test(e.userMessage));
    });
  });
});
