import * as path from 'node:path';
import * as vscode from 'vscode';
import { readTemplate } from '../../adapters/wikiTemplate';
import { commitWiki, prepareWikiCommit } from '../../core/git/commitWiki';
import { WikiError } from '../../core/errors';
import { TOPICS, type Topic } from '../../core/model';
import { loadGitModule } from '../common/heavyModules';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';

/** Runs a command body with the error handling every command shares. */
export function command(services: Services, name: string, run: () => Promise<unknown>): () => Promise<unknown> {
  return async () => {
    try {
      return await run();
    } catch (error) {
      showError(services.output, name, error);
      return undefined;
    }
  };
}

export async function initialise(services: Services) {
  if (!ensureTrusted('Initialising the wiki')) return undefined;
  const wiki = await services.wikis.pick({ mustExist: false, purpose: 'Initialise wiki' });
  if (!wiki) return undefined;
  const result = await wiki.init(await readTemplate(services.templateDir));
  services.wikis.notifyChanged(wiki);
  if (!result.created) {
    void vscode.window.showInformationMessage(`${path.basename(wiki.root)} already has a wiki; nothing was changed.`);
    return result;
  }
  services.output.info(`Initialised ${wiki.dir}: ${result.files.join(', ')}`);
  await vscode.commands.executeCommand('repoWiki.pages.focus');
  void vscode.window.showInformationMessage(`Wiki created in ${wiki.relative(wiki.dir)}/ with ${result.files.length} files. Commit it with your code.`, 'Open SCHEMA.md')
    .then((choice) => choice && vscode.window.showTextDocument(vscode.Uri.file(path.join(wiki.dir, 'SCHEMA.md'))));
  return result;
}

export async function newPage(services: Services) {
  if (!ensureTrusted('Creating a page')) return undefined;
  const wiki = await services.wikis.pick({ mustExist: true, purpose: 'New page' });
  if (!wiki) return undefined;
  const title = await vscode.window.showInputBox({
    title: 'New wiki page (1/2)',
    prompt: 'Title of the page',
    placeHolder: 'e.g. Request pipeline',
    validateInput: (value) => (value.trim() ? (value.length > 200 ? 'At most 200 characters.' : undefined) : 'A page needs a title.'),
  });
  if (!title) return undefined;
  const topic = await vscode.window.showQuickPick(TOPICS.map((label) => ({ label })), { title: 'New wiki page (2/2)', placeHolder: 'Topic' });
  if (!topic) return undefined;
  const created = await wiki.createPage({ title, topic: topic.label as Topic });
  services.wikis.notifyChanged(wiki);
  await vscode.window.showTextDocument(vscode.Uri.file(created.path));
  return created;
}

export async function rebuildIndex(services: Services) {
  if (!ensureTrusted('Rebuilding the index')) return undefined;
  const wikis = await services.wikis.existing();
  if (!wikis.length) throw new WikiError('no-wiki', 'This workspace has no wiki.', 'Run "Repo Wiki: Initialise wiki in this workspace" first.');
  const results = await Promise.all(wikis.map((wiki) => wiki.rebuildIndex()));
  const pages = results.reduce((sum, result) => sum + result.pages.length, 0);
  void vscode.window.showInformationMessage(`Repo Wiki: index rebuilt from ${pages} pages${results.some((r) => r.changed) ? '' : ' (it was already current)'}.`);
  return { pages, changed: results.some((r) => r.changed) };
}

export async function commit(services: Services) {
  if (!ensureTrusted('Committing the wiki')) return undefined;
  const wiki = await services.wikis.pick({ mustExist: true, purpose: 'Commit wiki changes' });
  if (!wiki) return undefined;
  // simple-git loads only when someone commits.
  const { SimpleGitWiki } = loadGitModule();
  const git = new SimpleGitWiki(wiki.root);
  let prepared: { message: string; paths: string[] };
  try {
    prepared = await prepareWikiCommit(wiki, git);
  } catch (error) {
    if (error instanceof WikiError && error.code === 'nothing-to-commit') {
      void vscode.window.showInformationMessage('Repo Wiki: the wiki has no changes to commit.');
      return undefined;
    }
    throw error;
  }
  let message = prepared.message;
  if (vscode.workspace.getConfiguration('repoWiki.commit').get<boolean>('editMessage', true)) {
    const [subject, ...rest] = prepared.message.split('\n');
    const edited = await vscode.window.showInputBox({
      title: `Commit ${prepared.paths.length} wiki file${prepared.paths.length === 1 ? '' : 's'}`,
      prompt: 'Commit message (the generated list of changes is kept as its body). Only .wiki/ is committed; your other changes stay as they are.',
      value: subject,
      validateInput: (value) => (value.trim() ? undefined : 'A commit needs a message.'),
    });
    if (!edited) return undefined;
    message = [edited.trim(), ...rest].join('\n');
  }
  const result = await commitWiki(wiki, git, message);
  services.wikis.notifyChanged(wiki);
  void vscode.window.showInformationMessage(`Repo Wiki: committed ${result.files.length} wiki file${result.files.length === 1 ? '' : 's'} (${result.commit.slice(0, 7)}).`);
  return result;
}

export async function openLog(services: Services) {
  const wiki = await services.wikis.pick({ mustExist: true, purpose: 'Open log' });
  if (!wiki) return undefined;
  const { entries, skipped } = await wiki.readLog();
  if (skipped) {
    void vscode.window.showWarningMessage(`Repo Wiki: ${skipped} line${skipped === 1 ? '' : 's'} of log.jsonl could not be read (a torn write or a bad merge); they are kept as they are and skipped.`);
  }
  const editor = await vscode.window.showTextDocument(vscode.Uri.file(wiki.logPath), { preview: false });
  const end = editor.document.lineCount;
  editor.revealRange(new vscode.Range(end, 0, end, 0));
  return { entries: entries.length, skipped };
}
