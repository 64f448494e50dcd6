import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileAccessError, isMissing, WikiError } from '../../core/errors';
import type { FileStat, FileSystem, ReadOptions, Scope, WriteOptions } from '../../core/ports';
import { sensitivePathReason } from '../../core/files/sensitivePaths';
import { asyncCalls, syncCalls, type FsCalls } from './fsCalls';
import { WIKI_LOCK_WAIT_MS, withWikiLock } from './wikiLock';

/** Reads past this size are refused unless the caller sets its own cap: cited code, sources. */
export const DEFAULT_MAX_READ_BYTES = 16 * 1024 * 1024;

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL } = fs.constants;
// Windows has neither; its symbolic links are caught by the real-path checks instead.
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
/**
 * How long a folder's resolved real path is reused. Reads come in bursts over the same few folders
 * (all pages, the cited files of one module); a folder swapped for a link is seen after this.
 */
const REAL_FOLDER_TTL_MS = 250;

/** A file written this recently may be written again within one tick of the file system's clock, keeping its size and time. */
const SETTLED_MS = 2000;

/** The version of a file (see FileStat.version): which file (device, inode), its size, and when it and its status last changed. */
function versionOf(stat: fs.Stats): string | undefined {
  if (Date.now() - stat.mtimeMs < SETTLED_MS) return undefined;
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

interface RealScope {
  path: string;
  real: string;
}

/**
 * The one way Repo Wiki touches files of a workspace folder: the wiki, sources and cited code.
 * A clone is untrusted input, so every read takes regular files only (a FIFO or a device never
 * blocks it), within a size cap, whose real path stays inside the scope and whose name is not a
 * secret's; every write resolves its folder first and never goes through a symbolic link.
 */
export class WorkspaceFiles implements FileSystem {
  private readonly calls: FsCalls;
  private readonly scopes = new Map<string, Promise<RealScope>>();
  /** The same scopes once resolved (and existing), for the reads that need no wait. */
  private readonly resolvedScopes = new Map<string, RealScope>();
  private readonly realFolders = new Map<string, { real: string | Promise<string>; at: number }>();
  private readonly lockWaitMs: number;

  /**
   * `syncReads` reads with blocking calls, which skips a thread-pool round trip per file: for the
   * drift worker and the CLI, never for the extension host's main thread.
   */
  readonly root: string;

  constructor(root: string, options: { syncReads?: boolean; lockWaitMs?: number } = {}) {
    this.root = path.resolve(root);
    this.calls = options.syncReads ? syncCalls : asyncCalls;
    this.lockWaitMs = options.lockWaitMs ?? WIKI_LOCK_WAIT_MS;
  }

  readFile(given: string, options: ReadOptions = {}): Promise<Uint8Array> {
    return this.readScoped(given, options);
  }

  async readVersioned(given: string, options: ReadOptions = {}): Promise<{ bytes: Uint8Array; version?: string }> {
    let version: string | undefined;
    const bytes = await this.readScoped(given, options, (stat) => (version = versionOf(stat)));
    return { bytes, version };
  }

  /** `opened`: told the open file's fstat, once the checks passed it. */
  private readScoped(given: string, options: ReadOptions, opened?: (stat: fs.Stats) => void): Promise<Uint8Array> {
    // Reads come by the thousand (every page): no await on the common path, where the scope is known.
    const scope = this.resolvedScopes.get(options.within ?? this.root);
    return scope ? this.readIn(scope, given, options, opened) : this.scope(options.within).then((resolved) => this.readIn(resolved, given, options, opened));
  }

  /**
   * The checks of readFile, blocking and within the workspace folder, for a caller that cannot
   * wait (a type checker's file host). A link is refused rather than resolved. Needs `syncReads`.
   */
  readFileSync(given: string, maxBytes = DEFAULT_MAX_READ_BYTES): Uint8Array {
    if (this.calls !== syncCalls) throw new Error('WorkspaceFiles.readFileSync needs syncReads.');
    const scope = { path: this.root, real: (this.realRootSync ??= fs.realpathSync.native(this.root)) };
    const file = this.assertMayRead(scope, given);
    return syncCalls.readChecked(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, maxBytes, (stat) => {
      this.assertReadable(stat, file, maxBytes, false);
      this.assertFolderInside(fs.realpathSync.native(path.dirname(file)), file, scope);
    }) as Buffer;
  }

  private realRootSync?: string;

  /** The normalised path, when it is inside the scope and not a secret-looking name. */
  private assertMayRead(scope: RealScope, given: string): string {
    const file = path.normalize(given);
    if (!isInside(scope.path, file)) throw this.outside(file, scope);
    const secret = sensitivePathReason(this.relative(file));
    if (secret) throw new FileAccessError('secret', this.shown(file), `${this.shown(file)} ${secret}; Repo Wiki does not read it.`);
    return file;
  }

  private async readIn(scope: RealScope, given: string, options: ReadOptions, opened?: (stat: fs.Stats) => void): Promise<Uint8Array> {
    const file = this.assertMayRead(scope, given);
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
    const truncate = options.truncate === true;
    // Checked on the open file itself (its fstat), so a path swapped since the open cannot slip through.
    const check = (stat: fs.Stats): void | Promise<void> => {
      this.assertReadable(stat, file, maxBytes, truncate);
      opened?.(stat);
      // O_NOFOLLOW made the last step no link; the folders above it must lead nowhere out either.
      const folder = this.realFolder(path.dirname(file));
      if (typeof folder !== 'string') return folder.then((real) => this.assertFolderInside(real, file, scope));
      this.assertFolderInside(folder, file, scope);
    };
    try {
      // O_NOFOLLOW: a link is resolved and checked first, never followed blindly. O_NONBLOCK: a
      // FIFO opens at once instead of waiting for a writer, and the check refuses it.
      return await this.calls.readChecked(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, maxBytes, check);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
    }
    const target = await this.linkTarget(file, scope);
    return this.calls.readChecked(target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, maxBytes, (stat) => {
      this.assertReadable(stat, file, maxBytes, truncate);
      opened?.(stat);
    });
  }

  private assertFolderInside(realFolder: string, file: string, scope: RealScope): void {
    if (!isInside(scope.real, realFolder)) throw this.linkOutside(file, scope);
  }

  /** A folder's real path, resolved at most once per REAL_FOLDER_TTL_MS (a promise on the thread pool, a string when blocking). */
  private realFolder(dir: string): string | Promise<string> {
    const now = Date.now();
    const cached = this.realFolders.get(dir);
    if (cached && now - cached.at < REAL_FOLDER_TTL_MS) return cached.real;
    if (this.realFolders.size > 1000) this.realFolders.clear();
    const real = this.calls.realpath(dir);
    const entry = { real, at: now };
    this.realFolders.set(dir, entry);
    // Once resolved, the string itself: the reads after it check without waiting.
    if (typeof real !== 'string') real.then((resolved) => (entry.real = resolved), () => this.realFolders.delete(dir));
    return real;
  }

  /** The real path the link `file` points to, when that stays inside the scope and is a regular file. */
  private async linkTarget(file: string, scope: RealScope): Promise<string> {
    const target = await this.calls.realpath(file);
    if (!isInside(scope.real, target)) throw this.linkOutside(file, scope);
    // Devices are refused before they are opened: opening one can have effects of its own.
    const stat = await this.calls.stat(target);
    if (!stat.isFile() && !stat.isDirectory()) throw notRegular(this.shown(file), stat);
    return target;
  }

  async writeFileAtomic(file: string, data: string, options: WriteOptions = {}): Promise<void> {
    const target = await this.writeTarget(file, options);
    const temp = path.join(path.dirname(target), `.${path.basename(target)}.rwtmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      // O_EXCL: never reuse, or write through, something already at the temp name.
      const handle = await fs.promises.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
      try {
        await handle.writeFile(data, 'utf8');
        if (options.durable !== false) await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.promises.rename(temp, target);
    } catch (error) {
      await fs.promises.rm(temp, { force: true }).catch(() => undefined); // the write error below is what matters
      throw writeError(this.shown(file), error);
    }
  }

  async appendFile(file: string, data: string, options: Scope = {}): Promise<void> {
    const target = await this.writeTarget(file, options);
    const shown = this.shown(file);
    let handle: fs.promises.FileHandle | undefined;
    try {
      // O_NOFOLLOW: a log that is a link to ~/.bashrc is refused here, not appended to.
      handle = await fs.promises.open(target, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o644);
      const stat = await handle.stat();
      if (!stat.isFile()) throw notRegular(shown, stat);
      // One write call per entry: concurrent appenders (two windows) interleave whole lines.
      await handle.write(data, null, 'utf8');
      await handle.sync();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw symlinkTarget(shown);
      if ((error as NodeJS.ErrnoException).code === 'ENXIO') throw new FileAccessError('not-regular', shown, `${shown} is a FIFO, not a regular file; nothing was written.`);
      throw writeError(shown, error);
    } finally {
      await handle?.close();
    }
  }

  async stat(file: string): Promise<FileStat | undefined> {
    try {
      const stat = await this.calls.stat(file);
      return { size: stat.size, isFile: stat.isFile(), isDirectory: stat.isDirectory(), version: versionOf(stat) };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async readdir(dir: string, options: Scope = {}): Promise<string[]> {
    const scope = await this.scope(options.within);
    this.assertLexicallyInside(dir, scope);
    const real = fs.realpathSync.native(dir);
    if (!isInside(scope.real, real)) throw this.linkOutside(dir, scope);
    return fs.promises.readdir(real);
  }

  async mkdir(dir: string, options: Scope = {}): Promise<void> {
    const scope = await this.scope(options.within);
    this.assertLexicallyInside(dir, scope);
    // A recursive mkdir follows links among the folders that exist: check those before creating.
    const existing = nearestExisting(dir);
    const floor = isInside(scope.path, existing) ? scope.real : await this.realRoot();
    if (!isInside(floor, fs.realpathSync.native(existing))) throw this.linkOutside(existing, scope);
    if (existing !== dir) {
      try {
        fs.mkdirSync(dir, { recursive: true });
      } catch (error) {
        throw writeError(this.shown(dir), error);
      }
    }
    if (!isInside(scope.real, fs.realpathSync.native(dir))) throw this.linkOutside(dir, scope);
  }

  async assertWritable(file: string, options: Scope = {}): Promise<void> {
    try {
      await this.writeTarget(file, options);
    } catch (error) {
      // A folder that does not exist yet is created by the write itself.
      if ((error as WikiError).code === 'write-failed' && !(await this.stat(path.dirname(file)))) return;
      throw error;
    }
  }

  async withLock<T>(lockPath: string, work: () => Promise<T>): Promise<T> {
    await this.mkdir(path.dirname(lockPath));
    return withWikiLock(lockPath, this.shown(lockPath), this.lockWaitMs, work);
  }

  async remove(file: string, options: Scope = {}): Promise<boolean> {
    const { target, stat, shown } = await this.entry(file, options);
    if (!stat) return false;
    // Unlinking removes the entry itself: a link goes, what it points to stays.
    if (stat.isDirectory()) throw notRegular(shown, stat);
    try {
      await fs.promises.unlink(target);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw writeError(shown, error);
    }
  }

  /** Where a write to `file` lands: its folder resolved and inside the scope; never a link or a special file. */
  private async writeTarget(file: string, options: Scope): Promise<string> {
    const { target, stat, shown } = await this.entry(file, options);
    if (stat?.isSymbolicLink()) throw symlinkTarget(shown);
    if (stat && !stat.isFile()) throw notRegular(shown, stat);
    return target;
  }

  /** The entry `file` names, with its folder resolved and inside the scope, and what is there now (not following a link). */
  private async entry(file: string, options: Scope): Promise<{ target: string; stat?: fs.Stats; shown: string }> {
    const scope = await this.scope(options.within);
    const shown = this.shown(file);
    this.assertLexicallyInside(file, scope);
    // Metadata only, a few calls per write: blocking costs less than a thread-pool trip each.
    let dir: string;
    let stat: fs.Stats | undefined;
    try {
      dir = fs.realpathSync.native(path.dirname(file));
      if (!isInside(scope.real, dir)) throw this.linkOutside(file, scope);
      stat = fs.lstatSync(path.join(dir, path.basename(file)), { throwIfNoEntry: false });
    } catch (error) {
      throw writeError(shown, error);
    }
    return { target: path.join(dir, path.basename(file)), stat, shown };
  }

  private assertReadable(stat: fs.Stats, file: string, maxBytes: number, truncate: boolean): void {
    if (stat.isDirectory()) throw Object.assign(new Error(`EISDIR: ${file} is a folder`), { code: 'EISDIR' });
    if (!stat.isFile()) throw notRegular(this.shown(file), stat);
    if (stat.size > maxBytes && !truncate) {
      const shown = this.shown(file);
      throw new FileAccessError('too-large', shown, `${shown} is ${formatBytes(stat.size)}, over the ${formatBytes(maxBytes)} Repo Wiki reads; it was not read.`, 'Cite a smaller file, or keep large data out of the wiki and its citations.');
    }
  }

  private assertLexicallyInside(file: string, scope: RealScope): void {
    if (!isInside(scope.path, path.normalize(file))) throw this.outside(file, scope);
  }

  private outside(file: string, scope: RealScope): FileAccessError {
    const shown = this.shown(file);
    return new FileAccessError('outside', shown, `${shown} is outside ${this.shown(scope.path) || 'the workspace folder'}; Repo Wiki does not touch it.`);
  }

  /** The refusal of a path that is, or lies inside, a link out of the scope (`file` absolute). */
  private linkOutside(file: string, scope: RealScope): FileAccessError {
    const shown = this.shown(file);
    const where = scope.path === this.root ? 'the workspace folder' : this.shown(scope.path);
    return new FileAccessError('link-outside', shown, `${shown} is, or lies inside, a symbolic link that leads out of ${where}; Repo Wiki does not follow it.`, 'Replace the link with a regular file or folder. Nothing was read or written through it, and nothing was changed.');
  }

  /** The scope folder and its real path, which must itself lie inside the workspace's; resolved once, shared by concurrent reads. */
  private scope(within: string = this.root): Promise<RealScope> {
    let scope = this.scopes.get(within);
    if (!scope) {
      scope = this.resolveScope(within).then(({ scope: resolved, exists }) => {
        // A folder that does not exist yet (a wiki before init) is resolved again next time.
        if (exists) this.resolvedScopes.set(within, resolved);
        else this.scopes.delete(within);
        return resolved;
      });
      this.scopes.set(within, scope);
      scope.catch(() => this.scopes.delete(within));
    }
    return scope;
  }

  private async resolveScope(within: string): Promise<{ scope: RealScope; exists: boolean }> {
    const realRoot = await this.realRoot();
    if (within === this.root) return { scope: { path: within, real: realRoot }, exists: true };
    if (!isInside(this.root, within)) throw new FileAccessError('outside', within, `${within} is outside the workspace folder ${this.root}.`);
    const existing = nearestExisting(within);
    const real = path.join(fs.realpathSync.native(existing), path.relative(existing, within));
    if (!isInside(realRoot, real)) throw this.linkOutside(within, { path: this.root, real: realRoot });
    return { scope: { path: within, real }, exists: existing === within };
  }

  private realRootCache?: Promise<string>;
  private realRoot(): Promise<string> {
    return (this.realRootCache ??= fs.promises.realpath(this.root).catch((error: unknown) => {
      this.realRootCache = undefined;
      throw error;
    }));
  }

  /** Workspace-relative with `/`; a slice, not path.relative, as it runs per read. */
  private relative(file: string): string {
    const relative = isInside(this.root, file) ? file.slice(this.root.length).replace(/^[\\/]+/, '') : path.relative(this.root, file);
    return path.sep === '/' ? relative : relative.split(path.sep).join('/');
  }

  /** A path as a user knows it: workspace-relative inside the workspace, absolute outside. */
  private shown(file: string): string {
    return isInside(this.root, file) ? this.relative(file) : file;
  }
}

/** Whether the normalised absolute path `file` is `folder` or lies under it; plain string work, as it runs per read. */
function isInside(folder: string, file: string): boolean {
  if (!file.startsWith(folder)) return false;
  return file.length === folder.length || file[folder.length] === path.sep || folder.endsWith(path.sep);
}



function nearestExisting(dir: string): string {
  let current = dir;
  while (!fs.lstatSync(current, { throwIfNoEntry: false }) && path.dirname(current) !== current) current = path.dirname(current);
  return current;
}

function kindOf(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a folder';
  return 'not a regular file';
}

function notRegular(shown: string, stat: fs.Stats): FileAccessError {
  return new FileAccessError('not-regular', shown, `${shown} is ${kindOf(stat)}, not a regular file; Repo Wiki does not read or write it.`, 'Replace it with a regular file, or remove it. Nothing was changed.');
}

function symlinkTarget(shown: string): FileAccessError {
  return new FileAccessError('symlink', shown, `${shown} is a symbolic link; Repo Wiki never writes through a link, so nothing was written.`, 'Replace the link with a regular file. Nothing was changed.');
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}

/** Write failures as WikiErrors that say what to do; refusals pass through as they are. */
function writeError(shown: string, error: unknown): WikiError {
  if (error instanceof WikiError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    return new WikiError('read-only', `Cannot write ${shown}: the file system is read-only or access is denied (${code}).`, 'Check the folder\'s permissions, or open a writable copy of the repository. Nothing was changed.');
  }
  if (code === 'ENOSPC') {
    return new WikiError('write-failed', `Cannot write ${shown}: the disk is full.`, 'Free some space and try again. Nothing was changed.');
  }
  return new WikiError('write-failed', `Cannot write ${shown}: ${(error as Error).message}`, 'Nothing was changed.');
}
