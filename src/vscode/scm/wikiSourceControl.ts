import * as path from 'node:path';
import * as vscode from 'vscode';
import { type Wiki } from '../../core/wiki/wiki';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';

export const HEAD_SCHEME = 'repo-wiki-head';

/** For integration tests: the wiki changes the Source Control view lists, by folder. */
export interface WikiScmHooks {
  changes(root: string): string[];
  refresh(): Promise<void>;
}

/** A command that changes the repository's git setup: trusted workspaces only, errors shown with what to do. */
export async function installInRepository<T>(services: Services, action: string, title: string, install: (wiki: Wiki) => Promise<T>): Promise<T | undefined> {
  if (!ensureTrusted(action)) return undefined;
  const wiki = await services.wikis.pick({ mustExist: true, purpose: title });
  if (!wiki) return undefined;
  try {
    return await install(wiki);
  } catch (error) {
    showError(services.output, title, error);
    return undefined;
  }
}

export function resource(wiki: Wiki, relPath: string): vscode.SourceControlResourceState {
  const uri = vscode.Uri.file(path.join(wiki.root, relPath));
  const head = vscode.Uri.from({ scheme: HEAD_SCHEME, path: `/${relPath}`, query: wiki.root });
  return {
    resourceUri: uri,
    command: { command: 'vscode.diff', title: 'Show changes', arguments: [head, uri, `${path.basename(relPath)} (HEAD ↔ working tree)`] },
    decorations: { tooltip: `${relPath}: changed since the last commit` },
  };
}
