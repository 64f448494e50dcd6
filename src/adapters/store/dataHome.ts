import { createHash } from 'node:crypto';
import * as path from 'node:path';
import envPaths from 'env-paths';

/** Where conversations live on this machine; light, so the CLI can name it without loading sql.js. */

export const DATA_DIR_VARIABLE = 'REPO_WIKI_DATA_DIR';
/** The folder of the data home that holds one store folder per workspace folder. */
export const WORKSPACES = 'workspaces';

/** The per-user data folder: REPO_WIKI_DATA_DIR when set, else the platform's (env-paths: ~/.local/share/repo-wiki on Linux). */
export function conversationDataHome(env: NodeJS.ProcessEnv = process.env): string {
  const given = env[DATA_DIR_VARIABLE]?.trim();
  return given ? path.resolve(given) : envPaths('repo-wiki', { suffix: '' }).data;
}

/** The store folder of a workspace folder (its real path): a readable name, and a hash of the path that keeps it unique. */
export function storeDirFor(home: string, realFolder: string): string {
  const name = path.basename(realFolder).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 40) || 'folder';
  const hash = createHash('sha256').update(realFolder).digest('hex').slice(0, 16);
  return path.join(home, WORKSPACES, `${name}-${hash}`);
}
