import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCliProcess as cli } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

// query, ingest and lint --llm on every provider, in real processes, against local mocks of each API.
const DEMO = path.resolve(__dirname, '../../../../demo');
const harness = (name: string) => require(path.resolve(__dirname, `../../../../test/harness/${name}.cjs`));
const { startMockOllama } = harness('mockOllama');
const { startMockOpenAi } = harness('mockOpenAi');
const { startMockAnthropic } = harness('mockAnthropic');

interface Mock { url: string; requests: { body: Record<string, any>; apiKey?: string; numCtx?: number; deployment?: string; apiVersion?: string }[]; script(...replies: unknown[]): void; close(): Promise<void> }

const PLAN = JSON.stringify({
  pages: [{
    action: 'create', slug: 'todo-completion', title: 'Completing todos', topic: 'patterns', summary: 'What completing a todo does.', tags: ['todos'],
    body: '# Completing todos\n\n`src/todos.ts:TodoStore.complete` marks a todo done.', citations: ['src/todos.ts:TodoStore.complete'],
  }],
  corroborate: [],
  links: [],
});

describe('the CLI on every provider (mock servers)', function () {
  this.timeout(60_000);
  let ws: string;
  let ollama: Mock;
  let openai: Mock;
  let anthropic: Mock;

  beforeEach(async () => {
    ws = tempDir('repo-wiki-providers-');
    fs.cpSync(DEMO, ws, { recursive: true });
    ollama = await startMockOllama();
    openai = await startMockOpenAi({ validKey: 'sk-openai-cli' });
    anthropic = await startMockAnthropic({ validKey: 'sk-ant-cli' });
  });
  afterEach(async () => Promise.all([ollama.close(), openai.close(), anthropic.close()]));

  it('query --model ollama/… answers through Ollama, with num_ctx, calling tools, and says which model answered', async () => {
    ollama.script({ toolCalls: [{ name: 'read_code', arguments: { citation: 'src/todos.ts:TodoStore.complete' } }] }, { text: 'It marks the todo done.' });
    const result = await cli(['query', 'How does completing a todo work?', '--workspace', ws, '--model', 'ollama/qwen2.5-coder:7b', '--format', 'json'], { OLLAMA_HOST: ollama.url });
    assert.equal(result.code, 0, result.stderr);
    const json = JSON.parse(result.stdout);
    assert.equal(json.answer, 'It marks the todo done.');
    assert.equal(json.model, 'ollama/qwen2.5-coder:7b');
    assert.deepEqual(json.attempts, []);
    assert.deepEqual(json.steps.map((step: { tool: string; ok: boolean }) => [step.tool, step.ok]), [['read_code', true]]);
    assert.ok(ollama.requests.filter((r) => r.body.messages).every((r) => r.numCtx === 32768), 'every chat request sends num_ctx');
    assert.match(JSON.stringify(ollama.requests.at(-1)!.body.messages), /TodoStore/, 'the tool result went back to the model');
  });

  it('REPO_WIKI_MODEL names the default; a fallback answers when the first model is overloaded, and both are named', async () => {
    anthropic.script({ status: 529 }, { status: 529 }, { status: 529 }, { status: 529 });
    openai.script({ text: 'From the fallback.' });
    const env = { REPO_WIKI_MODEL: 'anthropic/claude-test', ANTHROPIC_API_KEY: 'sk-ant-cli', ANTHROPIC_BASE_URL: anthropic.url, OPENAI_API_KEY: 'sk-openai-cli', OPENAI_BASE_URL: `${openai.url}/v1` };
    const json = await cli(['query', 'How does completing a todo work?', '--workspace', ws, '--fallback', 'openai/gpt-4.1', '--format', 'json'], env);
    assert.equal(json.code, 0, json.stderr);
    const answer = JSON.parse(json.stdout);
    assert.equal(answer.model, 'openai/gpt-4.1');
    assert.deepEqual(answer.attempts.map((a: { model: string; kind: string }) => [a.model, a.kind]), [['anthropic/claude-test', 'overloaded']]);
    assert.equal(openai.requests.at(-1)!.apiKey, 'sk-openai-cli');
    assert.ok(openai.requests.every((r) => r.apiKey !== 'sk-ant-cli'), 'each key goes only to its own provider');
  });

  it('text mode names the model that answered after the ones that failed', async () => {
    const result = await cli(['query', 'How does completing a todo work?', '--workspace', ws, '--model', 'ollama/missing:1b', '--fallback', 'ollama/qwen2.5-coder:7b'], { OLLAMA_HOST: ollama.url });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /ollama\/qwen2\.5-coder:7b after ollama\/missing:1b failed \(model-not-found\)/);
  });

  it('when every model fails, one error names each and why, with exit 2', async () => {
    const result = await cli(['query', 'How does completing a todo work?', '--workspace', ws, '--model', 'ollama/missing:1b', '--fallback', 'openai/gpt-4.1'], { OLLAMA_HOST: ollama.url, OPENAI_API_KEY: 'sk-wrong-key-9999', OPENAI_BASE_URL: `${openai.url}/v1` });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Every model failed:\n- ollama\/missing:1b \(model-not-found\): .*ollama pull missing:1b.*\n- openai\/gpt-4\.1 \(auth\): .*\n.*--fallback/);
    assert.doesNotMatch(result.stderr, /sk-wrong-key-9999/);
  });

  it('a model that cannot call tools answers in one shot, and the footer says so', async () => {
    ollama.script({ text: 'One shot answer.' });
    const result = await cli(['query', 'How does completing a todo work?', '--workspace', ws, '--model', 'ollama/llama3.2:1b'], { OLLAMA_HOST: ollama.url });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /one shot: the model cannot call tools/);
    assert.equal(ollama.requests.at(-1)!.body.tools, undefined);
  });

  it('refuses an unknown provider, a file: base URL, and Azure without an api-version, each clearly', async () => {
    const unknown = await cli(['query', 'q', '--workspace', ws, '--model', 'bedrock/claude'], {});
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown provider "bedrock"/);
    const file = await cli(['query', 'q', '--workspace', ws, '--model', 'openai/gpt-4.1'], { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'file:///etc' });
    assert.equal(file.code, 2);
    assert.match(file.stderr, /must be an http or https URL/);
    const azure = await cli(['query', 'How does completing a todo work?', '--workspace', ws, '--model', 'azure/gpt4o-prod'], { AZURE_OPENAI_API_KEY: 'sk-openai-cli', AZURE_OPENAI_ENDPOINT: openai.url });
    assert.equal(azure.code, 2);
    assert.match(azure.stderr, /api-version.*OPENAI_API_VERSION/);
  });

  it('ingest --model azure/… writes the plan through the deployment', async () => {
    fs.mkdirSync(path.join(ws, 'docs'));
    fs.writeFileSync(path.join(ws, 'docs', 'todos.md'), '# Todos\n\nCompleting a todo marks it done.\n');
    openai.script({ text: PLAN, usage: { prompt_tokens: 800, completion_tokens: 90 } });
    const env = { AZURE_OPENAI_API_KEY: 'sk-openai-cli', AZURE_OPENAI_ENDPOINT: openai.url, OPENAI_API_VERSION: '2024-10-21' };
    const result = await cli(['ingest', 'docs/todos.md', '--workspace', ws, '--yes', '--model', 'azure/gpt4o-prod'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(fs.existsSync(path.join(ws, '.wiki', 'pages', 'todo-completion.md')));
    assert.equal(openai.requests.at(-1)!.deployment, 'gpt4o-prod');
    const entry = JSON.parse(fs.readFileSync(path.join(ws, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').at(-1)!);
    assert.deepEqual([entry.op, entry.model, entry.tokens], ['ingest', 'azure/gpt4o-prod', { input: 800, output: 90 }]);
  });

  it('lint --llm with a fallback chain runs the librarian on the fallback', async () => {
    ollama.script({ text: JSON.stringify({ findings: [] }) });
    const result = await cli(['lint', '--llm', '--min-age-days', '0', '--workspace', ws, '--model', 'openai/gpt-4.1', '--fallback', 'ollama/qwen2.5-coder:7b', '--format', 'json'], { OPENAI_API_KEY: 'sk-openai-cli', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OLLAMA_HOST: ollama.url });
    assert.ok(result.code === 0 || result.code === 1, result.stderr);
    const json = JSON.parse(result.stdout);
    assert.ok(json.librarian.pagesChecked.length > 0);
    const entry = JSON.parse(fs.readFileSync(path.join(ws, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').at(-1)!);
    assert.equal(entry.model, 'ollama/qwen2.5-coder:7b');
  });
});
