import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RepoWikiApi } from '../../src/extension';
import type { HostToWebview } from '../../src/shared/protocol';
import type { ChatHooks } from '../../src/vscode/chat/chatView';

export const EXTENSION_ID = 'repo-wiki.repo-wiki';

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test window has a workspace folder');
  return folder.uri.fsPath;
}

export async function activateExtension(): Promise<RepoWikiApi> {
  const extension = vscode.extensions.getExtension<RepoWikiApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed`);
  return extension.activate();
}

/** Polls until `probe` returns a value that is not undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function lintDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'repo-wiki');
}

/** A request the mock Messages API received. */
export interface MockRequest {
  apiKey?: string;
  headers: Record<string, string>;
  body: { model: string; max_tokens: number; system: { text: string; cache_control?: unknown }[]; messages: { role: string; content: string }[]; tools?: { name: string }[]; tool_choice?: { type: string } };
  outcome?: 'complete' | 'error' | 'cut' | 'client-closed';
}

export interface MockAnthropic {
  url: string;
  requests: MockRequest[];
  /** Title requests (after a conversation's first answer): answered by the mock, never from the script. */
  titleRequests: MockRequest[];
  /** The reply title requests get; undefined goes back to the question as the title. */
  setTitleReply(reply?: unknown): void;
  script(...replies: unknown[]): void;
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the mock Messages API (test/harness/mockAnthropic.cjs, plain CommonJS shared with e2e). */
export function startMockAnthropic(options: { validKey?: string } = {}): Promise<MockAnthropic> {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'test', 'harness', 'mockAnthropic.cjs');
    if (fs.existsSync(candidate)) return (require(candidate) as { startMockAnthropic(o: object): Promise<MockAnthropic> }).startMockAnthropic(options);
  }
  throw new Error('mockAnthropic.cjs not found');
}

/** The chat view's host side, answering through the real SDK from a fresh mock Messages API that accepts `validKey`. */
export async function chatWithMockModel(validKey: string): Promise<{ root: string; chat: ChatHooks; mock: MockAnthropic; close(): Promise<void> }> {
  const root = workspaceRoot();
  const api = await activateExtension();
  const mock = await startMockAnthropic({ validKey });
  const llm = () => vscode.workspace.getConfiguration('repoWiki.llm');
  await llm().update('baseUrl', mock.url, vscode.ConfigurationTarget.Global);
  return {
    root, chat: api.hooks.chat as ChatHooks, mock,
    close: async () => {
      delete process.env.ANTHROPIC_API_KEY;
      await llm().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
      await mock.close();
    },
  };
}

/** A recorded message's text, whether it went as a string or as content blocks (the chat's last message carries a cache breakpoint). */
export function textOf(content: unknown): string {
  return typeof content === 'string' ? content : (content as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

/** Asks one question as the chat view does and collects what the host posts for it until the turn ends. */
export async function askChat(chat: ChatHooks, question: string) {
  const requestId = `t${Math.random().toString(36).slice(2)}`;
  const posted: HostToWebview[] = [];
  const subscription = chat.onDidPost((message) => {
    if (!('requestId' in message) || message.requestId === requestId) posted.push(message);
  });
  try {
    await chat.send({ type: 'ask', requestId, question });
  } finally {
    subscription.dispose();
  }
  const of = <T extends HostToWebview['type']>(type: T) => posted.filter((m): m is Extract<HostToWebview, { type: T }> => m.type === type);
  return { of, done: of('turnDone')[0], failed: of('turnFailed')[0] };
}

/** The wiki's committed files with their content; `.cache/` is local state (the write lock comes and goes with any write). */
export function wikiFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const dir = path.join(root, '.wiki');
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (name === '.cache' || name.startsWith(`.cache${path.sep}`)) continue;
    const file = path.join(dir, name);
    if (fs.statSync(file).isFile()) files.set(name, fs.readFileSync(file, 'utf8'));
  }
  return files;
}
