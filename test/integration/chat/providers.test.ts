import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChatHooks } from '../../../src/vscode/chat/chatView';
import { activateExtension, askChat } from '../helpers';

// The chat on every provider, through the real SDKs (openai, ollama, @anthropic-ai/sdk), against
// local mocks of each wire protocol, with models named provider/model in the settings.
interface Recorded { body: Record<string, any>; apiKey?: string; deployment?: string; numCtx?: number }
interface Mock { url: string; requests: Recorded[]; script(...replies: unknown[]): void; close(): Promise<void> }
function harness<T>(name: string): T {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'test', 'harness', `${name}.cjs`);
    if (fs.existsSync(candidate)) return require(candidate) as T;
  }
  throw new Error(`${name}.cjs not found`);
}
const { startMockOllama } = harness<{ startMockOllama(o?: object): Promise<Mock> }>('mockOllama');
const { startMockOpenAi } = harness<{ startMockOpenAi(o?: object): Promise<Mock> }>('mockOpenAi');
const { startMockAnthropic } = harness<{ startMockAnthropic(o?: object): Promise<Mock> }>('mockAnthropic');

const KEYS = { anthropic: 'sk-ant-providers-0001', openai: 'sk-openai-providers-0001' };
const TOOL_QUESTION = 'What turns a thrown error into a status code?';

const ask = askChat;

describe('Models of every provider in a real VS Code extension host', () => {
  let chat: ChatHooks;
  let ollama: Mock;
  let openai: Mock;
  let anthropic: Mock;
  const llm = () => vscode.workspace.getConfiguration('repoWiki.llm');
  const settings = ['model', 'fallbacks', 'baseUrl', 'openai.baseUrl', 'azure.endpoint', 'azure.apiVersion', 'ollama.host'];

  before(async () => {
    chat = (await activateExtension()).hooks.chat as ChatHooks;
    ollama = await startMockOllama();
    openai = await startMockOpenAi({ validKey: KEYS.openai });
    anthropic = await startMockAnthropic({ validKey: KEYS.anthropic });
    // Keys from the environment (SecretStorage comes first when set); endpoints in user settings.
    process.env.ANTHROPIC_API_KEY = KEYS.anthropic;
    process.env.OPENAI_API_KEY = KEYS.openai;
    process.env.AZURE_OPENAI_API_KEY = KEYS.openai;
    await llm().update('baseUrl', anthropic.url, vscode.ConfigurationTarget.Global);
    await llm().update('openai.baseUrl', `${openai.url}/v1`, vscode.ConfigurationTarget.Global);
    await llm().update('azure.endpoint', openai.url, vscode.ConfigurationTarget.Global);
    await llm().update('azure.apiVersion', '2024-10-21', vscode.ConfigurationTarget.Global);
    await llm().update('ollama.host', ollama.url, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'AZURE_OPENAI_API_KEY']) delete process.env[name];
    for (const setting of settings) await llm().update(setting, undefined, vscode.ConfigurationTarget.Global);
    await Promise.all([ollama?.close(), openai?.close(), anthropic?.close()]);
  });

  const cases: [string, () => Mock, unknown, unknown][] = [
    ['anthropic/claude-test', () => anthropic, { toolUses: [{ name: 'read_code', input: { citation: 'src/errors.ts:toErrorResponse' } }] }, { text: 'Errors become responses in `src/errors.ts:toErrorResponse`.' }],
    ['openai/gpt-4.1', () => openai, { toolCalls: [{ name: 'read_code', arguments: { citation: 'src/errors.ts:toErrorResponse' } }], quirk: 'no-index' }, { text: 'Errors become responses in `src/errors.ts:toErrorResponse`.' }],
    ['azure/gpt4o-prod', () => openai, { toolCalls: [{ name: 'read_code', arguments: { citation: 'src/errors.ts:toErrorResponse' } }] }, { text: 'Errors become responses in `src/errors.ts:toErrorResponse`.' }],
    ['ollama/qwen2.5-coder:7b', () => ollama, { toolCalls: [{ name: 'read_code', arguments: { citation: 'src/errors.ts:toErrorResponse' } }] }, { text: 'Errors become responses in `src/errors.ts:toErrorResponse`.' }],
  ];
  for (const [model, mock, toolCall, answer] of cases) {
    it(`the chat's tool loop answers on ${model}`, async () => {
      await llm().update('model', model, vscode.ConfigurationTarget.Global);
      await llm().update('fallbacks', undefined, vscode.ConfigurationTarget.Global);
      const chats = () => mock().requests.filter((request) => request.body?.messages).length; // not Ollama's /api/show
      const before = chats();
      mock().script(toolCall, answer);
      const turn = await ask(chat, TOOL_QUESTION);
      assert.ok(turn.done, JSON.stringify(turn.failed));
      assert.equal(turn.done.turn.model, model);
      assert.deepEqual(turn.done.turn.steps?.map((step) => [step.tool, step.ok]), [['read_code', true]]);
      assert.match(JSON.stringify(mock().requests.at(-1)!.body.messages), /function toErrorResponse/, 'the tool result went back to the model');
      assert.equal(chats() - before, 2, 'one round of tools, then the answer');
      assert.ok(turn.done.turn.contextWindow, 'the window the near-limit warning uses is the answering model\'s');
    });
  }

  it('falls back after a 503, and the turn names the model that answered and the one that failed', async () => {
    await llm().update('model', 'openai/gpt-4.1', vscode.ConfigurationTarget.Global);
    await llm().update('fallbacks', ['ollama/qwen2.5-coder:7b'], vscode.ConfigurationTarget.Global);
    // The SDK retries a 503 twice before the chain moves on.
    openai.script({ status: 503 }, { status: 503 }, { status: 503 });
    ollama.script({ text: 'The fallback answered.' });
    const turn = await ask(chat, 'How are todos completed?');
    assert.ok(turn.done, JSON.stringify(turn.failed));
    assert.equal(turn.done.turn.model, 'ollama/qwen2.5-coder:7b');
    assert.deepEqual(turn.done.turn.attempts?.map((attempt) => [attempt.model, attempt.kind]), [['openai/gpt-4.1', 'overloaded']]);
  });

  it('when every model fails, the chat shows one explicit error naming each', async () => {
    await llm().update('model', 'ollama/not-pulled:1b', vscode.ConfigurationTarget.Global);
    await llm().update('fallbacks', ['anthropic/claude-test'], vscode.ConfigurationTarget.Global);
    anthropic.script({ status: 401 });
    const turn = await ask(chat, 'How are todos completed?');
    assert.ok(turn.failed && !turn.done);
    assert.match(turn.failed.message, /Every model failed:\n- ollama\/not-pulled:1b \(model-not-found\): .*ollama pull not-pulled:1b.*\n- anthropic\/claude-test \(auth\)/s);
    assert.equal(turn.failed.action, 'setUpModel');
  });

  it('"Set up a model…" lists the Ollama server\'s models and sets the one picked', async () => {
    await llm().update('fallbacks', undefined, vscode.ConfigurationTarget.Global);
    const window = vscode.window as { showQuickPick: typeof vscode.window.showQuickPick; showInputBox: typeof vscode.window.showInputBox };
    const original = { showQuickPick: window.showQuickPick, showInputBox: window.showInputBox };
    const offered: string[][] = [];
    window.showQuickPick = (async (items: readonly vscode.QuickPickItem[] | Thenable<readonly vscode.QuickPickItem[]>) => {
      const list = [...(await items)];
      offered.push(list.map((item) => item.label));
      return offered.length === 1 ? list.find((item) => item.label === 'Ollama') : list.find((item) => item.label === 'llama3.2:1b');
    }) as unknown as typeof vscode.window.showQuickPick;
    window.showInputBox = (async () => ollama.url) as typeof vscode.window.showInputBox;
    try {
      await vscode.commands.executeCommand('repoWiki.setUpModel');
    } finally {
      Object.assign(window, original);
    }
    assert.deepEqual(offered[1], ['llama3.2:1b', 'qwen2.5-coder:7b'], 'the models the mock Ollama has');
    assert.equal(llm().get('model'), 'ollama/llama3.2:1b');
    assert.equal(llm().get('ollama.host'), ollama.url);
  });
});
