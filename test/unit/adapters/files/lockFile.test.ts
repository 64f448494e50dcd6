import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileLock, type LockAttempt, type LockOptions } from '../../../../src/adapters/files/lockFile';
import { FileAccessError } from '../../../../src/core/errors';
import { tempDir } from '../../../support/tempDirs';

// The module object itself (not an import's copy): a test replaces one of its calls to step into a race.
const nodeFs = require('node:fs') as typeof fs;

const OPTIONS: Omit<LockOptions, 'shown'> = { role: 'the test lock', rival: 'tester', staleMs: 30_000 };

/** A lock path in a new folder, and what the lock core is told about it. */
function setup(options: Partial<LockOptions> = {}) {
  const dir = tempDir('repo-wiki-lock-');
  const file = path.join(dir, 'test.lock');
  return { dir, file, options: { ...OPTIONS, shown: 'test.lock', ...options } };
}

const owner = (fields: Partial<{ pid: number; host: string; acquired: string; nonce: string }> = {}) =>
  JSON.stringify({ pid: process.pid, host: os.hostname(), acquired: new Date().toISOString(), nonce: 'other', ...fields });


function held(attempt: LockAttempt): FileLock {
  if ('busy' in attempt) assert.fail(`expected the lock, got: ${attempt.busy}`);
  return attempt.lock;
}

function busy(attempt: LockAttempt): string {
  if ('lock' in attempt) assert.fail('expected the lock to be busy');
  return attempt.busy;
}

/** Replaces `fs[name]` for the next call only. */
function onNextCall<K extends 'renameSync' | 'linkSync'>(name: K, replacement: (original: (typeof fs)[K], ...args: Parameters<(typeof fs)[K]>) => void): void {
  const original = nodeFs[name];
  (nodeFs as unknown as Record<string, unknown>)[name] = (...args: Parameters<(typeof fs)[K]>) => {
    (nodeFs as unknown as Record<string, unknown>)[name] = original;
    return (replacement as (...a: unknown[]) => void)(original, ...args);
  };
}

describe('FileLock (the lock core of the wiki and the chat history)', () => {
  let deadPid: number;
  before(() => (deadPid = Number(execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).trim())));

  it('creates the lock with its owner in one step, leaving no temp file, and removes it on release', () => {
    const { dir, file, options } = setup();
    const lock = held(FileLock.tryAcquire(file, options));
    const written = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(written.pid, process.pid);
    assert.equal(written.host, os.hostname());
    assert.ok(Math.abs(Date.parse(written.acquired) - Date.now()) < 5_000);
    assert.match(written.nonce, /^[0-9a-f-]{36}$/);
    assert.deepEqual(fs.readdirSync(dir), ['test.lock']);
    assert.equal(lock.held(), true);
    lock.release();
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it('says who holds a live lock, and is free again once it is released', () => {
    const { file, options } = setup();
    const first = held(FileLock.tryAcquire(file, options));
    const message = busy(FileLock.tryAcquire(file, options));
    assert.match(message, new RegExp(`^test\\.lock is held by process ${process.pid} on .+ since \\d{4}-`));
    first.release();
    held(FileLock.tryAcquire(file, options)).release();
  });

  it('keeps a lock whose content it cannot parse while it is young, judging it by its age', () => {
    const { file, options } = setup();
    fs.writeFileSync(file, 'written by something else');
    assert.equal(busy(FileLock.tryAcquire(file, options)), 'test.lock is held by another program');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    held(FileLock.tryAcquire(file, options)).release();
  });

  it('takes over the lock of a process that died on this host', () => {
    const { dir, file, options } = setup();
    fs.writeFileSync(file, owner({ pid: deadPid, nonce: 'dead' }));
    const lock = held(FileLock.tryAcquire(file, options));
    assert.notEqual(JSON.parse(fs.readFileSync(file, 'utf8')).nonce, 'dead');
    lock.release();
    assert.deepEqual(fs.readdirSync(dir), [], 'the stale lock moved aside is removed too');
  });

  it('takes over a lock older than staleMs, even from another host, but not a younger one', () => {
    const { file, options } = setup({ staleMs: 1_000 });
    fs.writeFileSync(file, owner({ host: 'another-host', acquired: new Date(Date.now() - 500).toISOString() }));
    assert.match(busy(FileLock.tryAcquire(file, options)), /held by process \d+ on another-host/);
    fs.writeFileSync(file, owner({ host: 'another-host', acquired: new Date(Date.now() - 5_000).toISOString() }));
    held(FileLock.tryAcquire(file, options)).release();
    fs.writeFileSync(file, owner({ host: 'another-host', acquired: 'not a date' }));
    held(FileLock.tryAcquire(file, options)).release();
  });

  it('is no longer held, and is not removed on release, once another process took it over', () => {
    const { file, options } = setup();
    const lock = held(FileLock.tryAcquire(file, options));
    const theirs = owner({ nonce: 'theirs' });
    fs.writeFileSync(file, theirs);
    assert.equal(lock.held(), false);
    lock.release();
    assert.equal(fs.readFileSync(file, 'utf8'), theirs);
  });

  it('refuses a lock that is a link, a FIFO or too large for a lock, changing nothing', () => {
    const { dir, file, options } = setup();
    const target = path.join(dir, 'target');
    fs.writeFileSync(target, 'export SENTINEL=1\n');
    fs.symlinkSync(target, file);
    assert.throws(() => FileLock.tryAcquire(file, options), (error: unknown) =>
      error instanceof FileAccessError && error.reason === 'symlink' && /^test\.lock, the test lock, is a symbolic link/.test(error.message));
    assert.equal(fs.readlinkSync(file), target);
    fs.rmSync(file);
    execFileSync('mkfifo', [file]);
    assert.throws(() => FileLock.tryAcquire(file, options), (error: unknown) =>
      error instanceof FileAccessError && error.reason === 'not-regular' && /^test\.lock, the test lock, is not a small regular file/.test(error.message));
    fs.rmSync(file);
    fs.writeFileSync(file, 'x'.repeat(5000));
    assert.throws(() => FileLock.tryAcquire(file, options), (error: unknown) => error instanceof FileAccessError && error.reason === 'not-regular');
    assert.deepEqual(fs.readdirSync(dir).sort(), ['target', 'test.lock'], 'no temp file is left either');
  });

  it('works where the file system has no hard links, by an exclusive create', () => {
    const { dir, file, options } = setup();
    onNextCall('linkSync', () => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    });
    const lock = held(FileLock.tryAcquire(file, options));
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).pid, process.pid);
    assert.deepEqual(fs.readdirSync(dir), ['test.lock']);
    lock.release();
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it('puts back a fresh lock it moved aside when another taker was faster, and gives up this time', () => {
    const { dir, file, options } = setup();
    fs.writeFileSync(file, owner({ pid: deadPid, nonce: 'dead' }));
    const faster = owner({ nonce: 'faster' });
    // Between our reading the stale lock and moving it aside, another process takes it over.
    onNextCall('renameSync', (rename, from, to) => {
      fs.writeFileSync(`${file}.new`, faster);
      rename(`${file}.new`, file);
      rename(from, to);
    });
    assert.match(busy(FileLock.tryAcquire(file, options)), new RegExp(`held by process ${process.pid}`));
    assert.equal(fs.readFileSync(file, 'utf8'), faster, 'the faster taker keeps its lock');
    assert.deepEqual(fs.readdirSync(dir), ['test.lock']);
  });

  it('warns when a fresh lock it moved aside cannot be put back (a third process took the place)', () => {
    const { dir, file, options } = setup();
    fs.writeFileSync(file, owner({ pid: deadPid, nonce: 'dead' }));
    onNextCall('renameSync', (rename, from, to) => {
      fs.writeFileSync(`${file}.new`, owner({ nonce: 'faster' }));
      rename(`${file}.new`, file);
      rename(from, to);
      // The third one sees no lock and creates its own before the lock moved aside is put back.
      onNextCall('linkSync', (link, existing, created) => {
        fs.writeFileSync(file, owner({ nonce: 'third' }));
        link(existing, created);
      });
    });
    const warnings: string[] = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string) => warnings.push(warning)) as typeof process.emitWarning;
    try {
      busy(FileLock.tryAcquire(file, options));
    } finally {
      process.emitWarning = emitWarning;
    }
    assert.deepEqual(warnings, ['Repo Wiki: two processes took over test.lock at once.']);
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).nonce, 'third');
    assert.deepEqual(fs.readdirSync(dir), ['test.lock']);
  });

  describe('acquire (waiting)', () => {
    it('waits for a lock held by another process and takes it once released', async () => {
      const { file, options } = setup();
      fs.writeFileSync(file, owner());
      setTimeout(() => fs.rmSync(file), 60);
      const started = Date.now();
      const lock = held(await FileLock.acquire(file, options, 5_000));
      assert.ok(Date.now() - started >= 50, 'it waited');
      lock.release();
    });

    it('gives up after waitMs, saying who holds it', async () => {
      const { file, options } = setup();
      fs.writeFileSync(file, owner());
      const started = Date.now();
      assert.match(busy(await FileLock.acquire(file, options, 80)), /held by process/);
      const waited = Date.now() - started;
      assert.ok(waited >= 80 && waited < 2_000, `waited ${waited} ms`);
    });
  });
});
