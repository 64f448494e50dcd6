import * as path from 'node:path';
import * as vscode from 'vscode';
import { installMergeDriver, installPreCommitHook } from '../../adapters/git/gitHooks';
import { WikiError } from '../../core/errors';
import { commitWiki, prepareWikiCommit } from '../../core/git/commitWiki';
import { WIKI_DIR, type Wiki } from '../../core/wiki/wiki';
import { loadGitModule } from '../common/heavyModules';
import { ensureTrusted, showError } from '../common/userErrors';
import type { Services } from '../services/services';
import { HEAD_SCHEME, WikiScmHooks, installInRepository, resource } from './wikiSourceControl';

/**
 * A "Repo Wiki" source control: the wiki's changed files with a diff against HEAD, and a commit box
 * that commits only `.wiki/` (the generated message when the box is empty).
 */
export const scmFeature = {
  activate(context: vscode.ExtensionContext, services: Services): { scm: WikiScmHooks } {
    const controls = new Map<string, { control: vscode.SourceControl; group: vscode.SourceControlResourceGroup; paths: string[] }>();
    const git = (wiki: Wiki) => new (loadGitModule().SimpleGitWiki)(wiki.root);

    const refresh = async () => {
      if (!vscode.workspace.isTrusted) return; // git does not run in Restricted Mode
      for (const wiki of await services.wikis.existing()) {
        const repo = git(wiki);
        if (await repo.unavailableReason()) continue;
        let entry = controls.get(wiki.root);
        if (!entry) {
          const control = vscode.scm.createSourceControl('repoWiki', `Repo Wiki (${path.basename(wiki.root)})`, vscode.Uri.file(wiki.root));
          control.inputBox.placeholder = 'Message (Ctrl+Enter commits only .wiki/; empty uses the generated message)';
          control.acceptInputCommand = { command: 'repoWiki.scmCommit', title: 'Commit wiki changes', arguments: [wiki.root] };
          const group = control.createResourceGroup('wiki', 'Wiki changes');
          group.hideWhenEmpty = false;
          entry = { control, group, paths: [] };
          controls.set(wiki.root, entry);
          context.subscriptions.push(control);
        }
        entry.paths = (await repo.changedWikiPaths()).map((p) => p.replace(/\/$/, ''));
        entry.control.count = entry.paths.length;
        entry.group.resourceStates = entry.paths.map((relPath) => resource(wiki, relPath));
      }
    };
    let timer: NodeJS.Timeout | undefined;
    const soon = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void refresh().catch((error) => services.output.warn(`Source Control: ${(error as Error).message}`)), 300);
    };

    context.subscriptions.push(
      { dispose: () => clearTimeout(timer) },
      vscode.workspace.registerTextDocumentContentProvider(HEAD_SCHEME, {
        provideTextDocumentContent: async (uri) => {
          const wiki = services.wikis.all().find((w) => w.root === uri.query);
          const relPath = uri.path.replace(/^\//, '');
          if (!wiki || !relPath.startsWith(`${WIKI_DIR}/`)) return '';
          return (await git(wiki).fileAtHead(relPath)) ?? '';
        },
      }),
      services.snapshots.onDidUpdate(soon),
      services.ages.onDidChange(soon),
      vscode.workspace.onDidGrantWorkspaceTrust(soon),
      // From the commit box: the folder's root; from the view's title bar: the SourceControl itself.
      vscode.commands.registerCommand('repoWiki.scmCommit', async (target?: string | vscode.SourceControl) => {
        if (!ensureTrusted('Committing the wiki')) return undefined;
        const root = typeof target === 'string' ? target : target?.rootUri?.fsPath;
        const wiki = services.wikis.all().find((w) => w.root === root) ?? (await services.wikis.pick({ mustExist: true, purpose: 'Commit wiki changes' }));
        const entry = wiki && controls.get(wiki.root);
        if (!wiki) return undefined;
        try {
          const repo = git(wiki);
          const prepared = await prepareWikiCommit(wiki, repo);
          const typed = entry?.control.inputBox.value.trim();
          const [, ...body] = prepared.message.split('\n');
          const result = await commitWiki(wiki, repo, typed ? [typed, ...body].join('\n') : prepared.message);
          if (entry) entry.control.inputBox.value = '';
          services.wikis.notifyChanged(wiki);
          await refresh();
          void vscode.window.showInformationMessage(`Repo Wiki: committed ${result.files.length} wiki file${result.files.length === 1 ? '' : 's'} (${result.commit.slice(0, 7)}).`);
          return result;
        } catch (error) {
          if (error instanceof WikiError && error.code === 'nothing-to-commit') {
            void vscode.window.showInformationMessage('Repo Wiki: the wiki has no changes to commit.');
            return undefined;
          }
          showError(services.output, 'Commit wiki changes', error);
          return undefined;
        }
      }),
      vscode.commands.registerCommand('repoWiki.installHook', () => installInRepository(services, 'Installing a git hook', 'Install pre-commit drift check', async (wiki) => {
        const result = await installPreCommitHook(wiki.root, path.join(context.extensionPath, 'dist', 'cli.js'));
        const what = { created: 'installed', updated: 'updated', chained: 'added before your existing hook', unchanged: 'already installed' }[result.action] ?? result.action;
        void vscode.window.showInformationMessage(`Repo Wiki: pre-commit drift check ${what} (${result.path}). Commits that touch .wiki/ or a cited file now run "repo-wiki drift".`);
        return result;
      })),
      vscode.commands.registerCommand('repoWiki.installMergeDriver', () => installInRepository(services, 'Installing a git merge driver', 'Install wiki merge drivers', async (wiki) => {
        const result = await installMergeDriver(wiki.root, path.join(context.extensionPath, 'dist', 'cli.js'));
        const attributes = result.attributes === 'added' ? ' .wiki/.gitattributes now names them: commit that change so every clone with the drivers uses them.' : '';
        void vscode.window.showInformationMessage(`Repo Wiki: wiki merge drivers ${result.driver} in this clone. Branches that add or edit different pages now merge index.json and index.md without a conflict, and pages merge their drift anchors citation by citation.${attributes}`);
        return result;
      })),
    );
    soon();
    return { scm: { changes: (root) => controls.get(root)?.paths ?? [], refresh } };
  },
};
