import * as path from 'node:path';
import * as vscode from 'vscode';
import { WorkspaceFiles } from '../../adapters/files/workspaceFiles';
import type { Conversation, ConversationStore } from '../../core/chat/conversation';
import { ImportError, parseConversationExport } from '../../core/chat/import';
import { deleteExpired, selectExpired, type RetentionPolicy } from '../../core/chat/retention';

/** Import and clean-up of the chat history: the commands, and the retention policy applied at startup. */

/** Export files larger than this are refused before they are read (a conversation is a few MB at most). */
const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
/** Conversation titles listed in the clean-up confirmation. */
const TITLES_SHOWN = 8;

export interface ImportOutcome {
  imported: { file: string; id: string; title: string }[];
  failed: { file: string; message: string }[];
}

/**
 * Imports each export file as one conversation. A file that cannot be read or is malformed is
 * reported by name with what is wrong, and nothing of it is imported; the other files still are.
 */
export async function importConversations(store: ConversationStore, output: vscode.LogOutputChannel, files: readonly vscode.Uri[]): Promise<ImportOutcome> {
  const outcome: ImportOutcome = { imported: [], failed: [] };
  for (const uri of files) {
    const file = path.basename(uri.fsPath);
    try {
      // Through the file-access module: a FIFO, a device or an oversized file is refused, never waited on.
      const bytes = await new WorkspaceFiles(path.dirname(uri.fsPath)).readFile(uri.fsPath, { maxBytes: MAX_IMPORT_BYTES });
      const record = parseConversationExport(utf8(bytes));
      // One store change per file: it is imported whole or not at all.
      const stored = await store.importRecord(record);
      outcome.imported.push({ file, id: stored.id, title: stored.title });
      output.info(`Imported ${uri.fsPath} as conversation ${stored.id}${stored.id === record.conversation.id ? '' : ` (its id ${record.conversation.id || '(none)'} was taken or missing)`}.`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      outcome.failed.push({ file, message });
      output.warn(`Could not import ${uri.fsPath}: ${message}`);
    }
  }
  return outcome;
}

function utf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ImportError('the file is not UTF-8 text');
  }
}

/** The command: files from the argument (scripts, tests) or a file picker, then a summary of what came in. */
export async function importConversationsCommand(store: () => Promise<ConversationStore>, output: vscode.LogOutputChannel, files?: unknown): Promise<ImportOutcome | undefined> {
  let uris: readonly vscode.Uri[] | undefined;
  if (files instanceof vscode.Uri) uris = [files];
  else if (Array.isArray(files) && files.length && files.every((file) => file instanceof vscode.Uri)) uris = files as vscode.Uri[];
  else {
    uris = await vscode.window.showOpenDialog({
      title: 'Import conversations', openLabel: 'Import', canSelectMany: true, canSelectFiles: true, canSelectFolders: false,
      filters: { 'Conversation exports': ['json', 'md'], 'All files': ['*'] },
    });
  }
  if (!uris?.length) return undefined;
  const outcome = await importConversations(await store(), output, uris);
  for (const failure of outcome.failed) {
    void vscode.window.showErrorMessage(`Repo Wiki: Could not import ${failure.file}: ${failure.message}. Nothing from it was imported.`);
  }
  if (outcome.imported.length) {
    const what = outcome.imported.length === 1 ? `"${outcome.imported[0].title}"` : `${outcome.imported.length} conversations`;
    void vscode.window.showInformationMessage(`Repo Wiki: Imported ${what} into the chat history.`);
  }
  return outcome;
}

export interface CleanUpOutcome {
  deleted: Conversation[];
  keptFiled: Conversation[];
}

/** Validated command argument: `{ olderThanDays, includeFiled? }` runs that policy without asking. */
function policyArgument(value: unknown): RetentionPolicy | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { olderThanDays, includeFiled } = value as Record<string, unknown>;
  if (!Number.isInteger(olderThanDays) || (olderThanDays as number) < 1) return undefined;
  if (includeFiled !== undefined && typeof includeFiled !== 'boolean') return undefined;
  return { olderThanDays: olderThanDays as number, includeFiled: includeFiled === true };
}

export function retentionDays(): number {
  const days = vscode.workspace.getConfiguration('repoWiki.chat').get<number>('retentionDays') ?? 0;
  return Number.isInteger(days) && days > 0 ? days : 0;
}

/**
 * The command: the policy (from the argument, the setting, or asked for), then a modal that lists
 * what goes and offers to delete the filed conversations too. Nothing is deleted without an answer.
 */
export async function cleanUpConversationsCommand(store: () => Promise<ConversationStore>, output: vscode.LogOutputChannel, argument?: unknown): Promise<CleanUpOutcome | undefined> {
  const given = policyArgument(argument);
  const conversations = await store();
  if (given) return cleanUp(conversations, given, output);
  let days = retentionDays();
  if (!days) {
    const answer = await vscode.window.showInputBox({
      title: 'Clean up old conversations',
      prompt: 'Delete conversations not updated for how many days? (Set repoWiki.chat.retentionDays to do this at every start.)',
      value: '90',
      validateInput: (text) => (/^[1-9]\d{0,4}$/.test(text.trim()) ? undefined : 'A whole number of days, 1 or more.'),
    });
    if (!answer) return undefined;
    days = Number(answer.trim());
  }
  const selection = selectExpired(await conversations.list(), { olderThanDays: days, includeFiled: false }, new Date());
  const filedCount = selection.keptFiled.length;
  if (!selection.expired.length && !filedCount) {
    void vscode.window.showInformationMessage(`Repo Wiki: No conversation is older than ${days} days.`);
    return { deleted: [], keptFiled: [] };
  }
  const titles = selection.expired.slice(0, TITLES_SHOWN).map((c) => `• ${c.title}`);
  if (selection.expired.length > TITLES_SHOWN) titles.push(`…and ${selection.expired.length - TITLES_SHOWN} more`);
  const kept = filedCount ? `\n\n${filedCount} older conversation${filedCount === 1 ? ' was' : 's were'} saved to the wiki and ${filedCount === 1 ? 'is' : 'are'} kept.` : '';
  const deleteButton = selection.expired.length ? `Delete ${selection.expired.length}` : undefined;
  const deleteFiledButton = filedCount ? 'Delete filed ones too' : undefined;
  const choice = await vscode.window.showWarningMessage(
    selection.expired.length
      ? `Delete ${selection.expired.length} conversation${selection.expired.length === 1 ? '' : 's'} not updated for ${days} days?`
      : `Only conversations saved to the wiki are older than ${days} days.`,
    { modal: true, detail: `${titles.join('\n')}${kept}\n\nThis cannot be undone.`.trim() },
    ...[deleteButton, deleteFiledButton].filter((button): button is string => !!button),
  );
  if (!choice) return undefined;
  return cleanUp(conversations, { olderThanDays: days, includeFiled: choice === deleteFiledButton }, output);
}

/** Applies a policy now and logs every conversation it deleted. */
export async function cleanUp(store: ConversationStore, policy: RetentionPolicy, output: vscode.LogOutputChannel): Promise<CleanUpOutcome> {
  const selection = selectExpired(await store.list(), policy, new Date());
  const deleted = await deleteExpired(store, selection.expired);
  const rule = `not updated for ${policy.olderThanDays} days${policy.includeFiled ? ', saved to the wiki or not' : ''}`;
  if (deleted.length) {
    output.info(`Chat history clean-up (${rule}): deleted ${deleted.length} conversation(s): ${deleted.map((c) => `"${c.title}" (${c.id}, last updated ${c.updated})`).join(', ')}.`);
  }
  if (selection.keptFiled.length) output.info(`Chat history clean-up: kept ${selection.keptFiled.length} older conversation(s) saved to the wiki.`);
  return { deleted, keptFiled: selection.keptFiled };
}
