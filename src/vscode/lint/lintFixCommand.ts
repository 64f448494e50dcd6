import * as vscode from 'vscode';
import { applyLintFixes, planLintFixes } from '../../core/lint/lintFix';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';

/** "Fix safe lint problems": shows what will change, then unlinks deleted pages, marks stale, rebuilds the index. */
export function registerLintFixCommand(services: Services): vscode.Disposable {
  return vscode.commands.registerCommand('repoWiki.lintFix', async (options?: { confirm?: boolean }) => {
    if (!ensureTrusted('Fixing lint problems')) return undefined;
    const wiki = await services.wikis.pick({ mustExist: true, purpose: 'Fix safe lint problems' });
    if (!wiki) return undefined;
    try {
      const pages = await wiki.loadPages();
      const drift = await services.cores.of(wiki).drift.check();
      const plan = await planLintFixes(wiki, pages, drift);
      const changes = [
        ...plan.unlinked.map(({ slug, targets }) => `${slug}: unlink ${targets.map((t) => `[[${t}]]`).join(', ')} (deleted)`),
        ...plan.stale.map(({ slug, citations }) => `${slug}: mark stale (all ${citations} code citations are missing)`),
      ];
      if (changes.length && options?.confirm !== false) {
        const detail = `${changes.slice(0, 12).join('\n')}${changes.length > 12 ? `\n… and ${changes.length - 12} more` : ''}\n\nThe index is rebuilt too. Each page is rewritten atomically, and the change is logged.`;
        const choice = await vscode.window.showWarningMessage(`Fix ${changes.length} safe lint problem${changes.length === 1 ? '' : 's'}?`, { modal: true, detail }, 'Fix');
        if (choice !== 'Fix') return undefined;
      }
      const result = await applyLintFixes(wiki, plan, new Date().toISOString().slice(0, 10));
      const message = changes.length ? `Repo Wiki: fixed ${changes.length} lint problem${changes.length === 1 ? '' : 's'} in ${result.pages.length} page${result.pages.length === 1 ? '' : 's'}.` : `Repo Wiki: no safe fixes to make${result.indexChanged ? '; the index was rebuilt' : ''}.`;
      void vscode.window.showInformationMessage(message);
      return { ...plan, ...result };
    } catch (error) {
      showError(services.output, 'Fix safe lint problems', error);
      return undefined;
    }
  });
}
