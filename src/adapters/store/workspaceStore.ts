import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isMissing, WikiError } from '../../core/errors';
import { conversationDataHome, storeDirFor, WORKSPACES } from './dataHome';
import { waitForStoreLock } from './fileLock';
import { replaceFileAtomic, storageError, syncDir } from './files';
import { LOCK_FILE, openConversationStore, storeDataFiles, type ConversationStoreOptions, type SqlJsConversationStore } from './sqlJsConversationStore';
import { sameRepository, workspaceIdentity, type WorkspaceIdentity } from './workspaceIdentity';

export { openConversationStore } from './sqlJsConversationStore';
export { conversationDataHome, DATA_DIR_VARIABLE, storeDirFor } from './dataHome';

/**
 * Where a workspace folder's conversations live: one store per folder in the user's data folder
 * (`~/.local/share/repo-wiki/workspaces/<name>-<hash>/` on Linux), shared by the extension and the
 * CLI, never in the repository: a clone cannot plant one, and `git clean -xdf` cannot delete one.
 *
 * Opening, in order: a store kept by an older version in VS Code's workspace storage is copied
 * here (the old files are then renamed `*.migrated`, never deleted); with no store for this path,
 * the store of a moved folder of the same repository (workspace.json records each store's folder
 * and identity) may be adopted; then the store opens as before, a damaged database set aside.
 */

/** Each store folder's record of the workspace folder it belongs to. */
export const WORKSPACE_FILE = 'workspace.json';
const MIGRATED = '.migrated';
const LEGACY_LOCK_WAIT_MS = 3_000;
const LEGACY_LOCK_STALE_MS = 60_000;
const WORKSPACE_FILE_MAX_BYTES = 64 * 1024;

/** What workspace.json holds. */
interface WorkspaceRecord {
  path: string;
  identity?: WorkspaceIdentity;
}

/** A store whose folder is gone, of the same repository as the folder being opened. */
export interface AdoptCandidate {
  /** The folder it was recorded for, which no longer exists. */
  path: string;
  dir: string;
}

export interface WorkspaceStoreOptions extends ConversationStoreOptions {
  /** The workspace folder. */
  folder: string;
  /** Default: conversationDataHome(). */
  dataHome?: string;
  /** Where an older version kept this workspace's conversations (VS Code's workspace storage). */
  legacyDir?: string;
  /** Default: the folder's git root commits and origin URL. */
  identity?: (realFolder: string) => Promise<WorkspaceIdentity | undefined>;
  /** Whether to take over the conversations of a moved folder; the CLI says yes, the extension asks. */
  adopt(candidate: AdoptCandidate): Promise<boolean>;
}

export interface OpenedWorkspaceStore {
  store: SqlJsConversationStore;
  /** Problems the user should know of (a damaged database set aside). */
  warnings: string[];
  /** What opening did besides (conversations migrated or adopted). */
  notices: string[];
  dir: string;
}

export async function openWorkspaceConversationStore(options: WorkspaceStoreOptions): Promise<OpenedWorkspaceStore> {
  const { folder, dataHome, legacyDir, identity: identify = workspaceIdentity, adopt, ...storeOptions } = options;
  const real = await fs.realpath(folder).catch((error: unknown) => {
    throw new WikiError('write-failed', `Cannot open the conversations of ${folder}: ${(error as Error).message}`, 'Check that the workspace folder exists.');
  });
  const home = dataHome ?? conversationDataHome();
  const dir = storeDirFor(home, real);
  // git walks the whole history to find the root commits: once per store, then workspace.json has them.
  const recorded = await readWorkspaceRecord(dir);
  const identity = recorded?.path === real && recorded.identity ? recorded.identity : await identify(real);
  const notices: string[] = [];
  const problems: string[] = [];
  // The old history must never keep the chat from opening: a failed move is said, and tried again at the next open.
  const leftBehind = (error: unknown) => problems.push(`The chat history in ${legacyDir} could not be moved to ${dir} (${(error as Error).message}); it was left where it was, and the next start tries again.`);
  if (!(await hasStoreFiles(dir))) {
    if (legacyDir && (await hasStoreFiles(legacyDir))) {
      try {
        if (await copyLegacyStore(legacyDir, dir)) notices.push(`Moved this workspace's chat history from ${legacyDir} to ${dir}, where the repo-wiki CLI shares it; the old files were kept, renamed *${MIGRATED}.`);
      } catch (error) {
        leftBehind(error);
      }
    } else if (identity) {
      const candidate = await findAdoptable(home, dir, identity);
      if (candidate && (await adopt(candidate)) && (await adoptStore(candidate, dir))) {
        notices.push(`Adopted the conversations of ${candidate.path} (that folder no longer exists; this one is the same repository).`);
      }
    }
  }
  await recordWorkspace(dir, { path: real, ...(identity ? { identity } : {}) }, storeOptions.now?.() ?? new Date());
  const { store, warnings } = await openConversationStore(dir, storeOptions);
  // The store here existed already (the CLI ran first), or another window copied first: bring the old one in record by record.
  if (legacyDir && !problems.length && (await hasStoreFiles(legacyDir))) {
    try {
      const merged = await mergeLegacyStore(store, legacyDir, storeOptions);
      notices.push(`Brought ${merged} conversation(s) from ${legacyDir} into ${dir}; the old files were kept, renamed *${MIGRATED}.`);
    } catch (error) {
      leftBehind(error);
    }
  }
  return { store, warnings: [...problems, ...warnings], notices, dir };
}

/** A database or a journal segment: a store, even an empty one, lives here. */
async function hasStoreFiles(dir: string): Promise<boolean> {
  try {
    return storeDataFiles(await fs.readdir(dir)).length > 0;
  } catch (error) {
    if (isMissing(error)) return false;
    throw storageError(dir, error);
  }
}

/** The files of a store: its databases and journal segments. */
async function storeFiles(dir: string): Promise<string[]> {
  return storeDataFiles(await fs.readdir(dir));
}

/**
 * Copies the old store into a staging folder, syncs it, renames it to `dir`, and only then renames
 * the old files aside. False when another process made `dir` first (the merge then brings them in).
 */
async function copyLegacyStore(legacyDir: string, dir: string): Promise<boolean> {
  const attempt = await waitForStoreLock(path.join(legacyDir, LOCK_FILE), LEGACY_LOCK_STALE_MS, LEGACY_LOCK_WAIT_MS);
  if ('busy' in attempt) throw new WikiError('store-busy', `The chat history in ${legacyDir} is being written by another window (${attempt.busy}), so it cannot be moved now.`, 'Try again in a moment. Nothing was changed.');
  const staging = `${dir}.staging-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const names = await storeFiles(legacyDir);
    try {
      await fs.mkdir(staging, { recursive: true });
      for (const name of names) {
        await fs.copyFile(path.join(legacyDir, name), path.join(staging, name));
        const handle = await fs.open(path.join(staging, name), 'r+');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      }
      await syncDir(staging);
      await fs.rename(staging, dir);
      await syncDir(path.dirname(dir));
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EPERM') return false;
      throw storageError(dir, error);
    }
    await setAsideLegacy(legacyDir, names);
    return true;
  } finally {
    attempt.lock.release();
  }
}

/**
 * Imports every conversation of the old store (a taken id gets a new one), then renames its files
 * aside. One already brought in by an interrupted merge (same id, same creation time) is skipped.
 */
async function mergeLegacyStore(store: SqlJsConversationStore, legacyDir: string, options: ConversationStoreOptions): Promise<number> {
  const { store: legacy } = await openConversationStore(legacyDir, options);
  let merged = 0;
  try {
    for (const { id, created } of await legacy.list()) {
      const record = await legacy.get(id);
      if (!record || (await store.get(id))?.conversation.created === created) continue;
      await store.importRecord(record);
      merged++;
    }
  } finally {
    await legacy.close();
  }
  await setAsideLegacy(legacyDir, await storeFiles(legacyDir));
  return merged;
}

async function setAsideLegacy(legacyDir: string, names: readonly string[]): Promise<void> {
  for (const name of names) await fs.rename(path.join(legacyDir, name), path.join(legacyDir, `${name}${MIGRATED}`));
  await syncDir(legacyDir);
}

/** The most recently recorded store of the same repository whose folder no longer exists. */
async function findAdoptable(home: string, ownDir: string, identity: WorkspaceIdentity): Promise<AdoptCandidate | undefined> {
  let names: string[];
  try {
    names = await fs.readdir(path.join(home, WORKSPACES));
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw storageError(path.join(home, WORKSPACES), error);
  }
  const found: { candidate: AdoptCandidate; recorded: number }[] = [];
  for (const name of names) {
    const dir = path.join(home, WORKSPACES, name);
    if (dir === ownDir || name.includes('.staging-')) continue;
    const record = await readWorkspaceRecord(dir);
    if (!record?.identity || !sameRepository(record.identity, identity) || (await exists(record.path)) || !(await hasStoreFiles(dir))) continue;
    found.push({ candidate: { path: record.path, dir }, recorded: (await fs.stat(path.join(dir, WORKSPACE_FILE))).mtimeMs });
  }
  return found.sort((a, b) => b.recorded - a.recorded)[0]?.candidate;
}

/** Renames the moved folder's store to this folder's; false when another process adopted it first. */
async function adoptStore(candidate: AdoptCandidate, dir: string): Promise<boolean> {
  try {
    await fs.rename(candidate.dir, dir);
    await syncDir(path.dirname(dir));
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isMissing(error) || code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw storageError(dir, error);
  }
}

/** Writes workspace.json when what it says changed; an unreadable one is renamed aside, not deleted. */
async function recordWorkspace(dir: string, record: WorkspaceRecord, now: Date): Promise<void> {
  const file = path.join(dir, WORKSPACE_FILE);
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch (error) {
    throw storageError(dir, error);
  }
  const text = `${JSON.stringify(record, null, 2)}\n`;
  const current = await readText(file);
  if (current === text) return;
  if (current !== undefined && !parseWorkspaceRecord(current)) {
    await fs.rename(file, `${file}.corrupt-${now.toISOString().replace(/[:.]/g, '-')}`).catch((error: unknown) => {
      throw storageError(file, error);
    });
  }
  await replaceFileAtomic(file, Buffer.from(text, 'utf8'), () => true);
}

async function readWorkspaceRecord(dir: string): Promise<WorkspaceRecord | undefined> {
  const text = await readText(path.join(dir, WORKSPACE_FILE));
  return text === undefined ? undefined : parseWorkspaceRecord(text);
}

/** A workspace.json, checked: anything else in the data folder is ignored, never trusted. */
function parseWorkspaceRecord(text: string): WorkspaceRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = value as { path?: unknown; identity?: { rootCommits?: unknown; remote?: unknown } } | null;
  if (typeof record?.path !== 'string' || !path.isAbsolute(record.path)) return undefined;
  const identity = record.identity;
  const valid = Array.isArray(identity?.rootCommits) && identity.rootCommits.every((commit) => typeof commit === 'string') && (identity.remote === undefined || typeof identity.remote === 'string');
  return { path: record.path, ...(valid ? { identity: identity as WorkspaceIdentity } : {}) };
}

/** A small text file, or undefined when absent or too large to be ours. */
async function readText(file: string): Promise<string | undefined> {
  try {
    const stat = await fs.lstat(file);
    if (!stat.isFile() || stat.size > WORKSPACE_FILE_MAX_BYTES) return undefined;
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw storageError(file, error);
  }
}

/** Whether something is at `file`; a path that cannot be checked counts as there (its store is not taken over). */
async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch (error) {
    return !isMissing(error);
  }
}
