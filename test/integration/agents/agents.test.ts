import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostToWebview } from '../../../src/shared/protocol';
import type { AgentHooks } from '../../../src/vscode/agents/agentsFeature';
import type { ChatHooks } from '../../../src/vscode/chat/chatView';
import type { IngestHooks } from '../../../src/vscode/ingest/ingestFeature';
import { PagesTreeProvider } from '../../../src/vscode/pages/pagesTree';
import type { RepoWikiApi } from '../../../src/extension';
import { activateExtension, workspaceRoot } from '../helpers';

const TOOL_NAMES = ['search_wiki', 'read_page', 'read_code', 'find_symbol', 'grep_code', 'check_drift', 'repo_map'];

/** The text of a language model tool result. */
function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

/**
 * A language model as VS Code hands one to a participant (`request.model`): it answers with the
 * scripted parts, one list per request, and records the messages and tools it was sent.
 * VS Code 1.100 cannot register a model provider without a proposed API, so the participant is
 * driven with this object in the real extension host; the VS Code model picker itself is untested.
 */
function scriptedModel(replies: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[][]) {
  const requests: { messages: vscode.LanguageModelChatMessage[]; tools: readonly vscode.LanguageModelChatTool[] }[] = [];
  const model = {
    id: 'test-model', name: 'Test Model', vendor: 'test', family: 'test', version: '1', maxInputTokens: 100_000,
    countTokens: async () => 1,
    sendRequest: async (messages: vscode.LanguageModelChatMessage[], options: vscode.LanguageModelChatRequestOptions = {}) => {
      requests.push({ messages, tools: options.tools ?? [] });
      const parts = replies.shift() ?? [new vscode.LanguageModelTextPart('(no more replies)')];
      return { stream: (async function* () { yield* parts; })(), text: (async function* () { /* unused */ })() };
    },
  };
  return { model: model as unknown as vscode.LanguageModelChat, requests };
}

/** A response stream that records what the participant sent. */
function recordingStream() {
  const markdown: string[] = [];
  const progress: string[] = [];
  const references: (vscode.Uri | vscode.Location)[] = [];
  const anchors: (vscode.Uri | vscode.Location)[] = [];
  const stream = {
    markdown: (value: string | vscode.MarkdownString) => void markdown.push(typeof value === 'string' ? value : value.value),
    progress: (value: string) => void progress.push(value),
    reference: (value: vscode.Uri | vscode.Location) => void references.push(value),
    anchor: (value: vscode.Uri | vscode.Location) => void anchors.push(value),
    button: () => undefined,
  };
  return { stream: stream as unknown as vscode.ChatResponseStream, markdown, progress, references, anchors };
}

function chatRequest(prompt: string, model: vscode.LanguageModelChat, command?: string): vscode.ChatRequest {
  return { prompt, command, references: [], toolReferences: [], toolInvocationToken: undefined, model } as unknown as vscode.ChatRequest;
}

const noToken = new vscode.CancellationTokenSource().token;

describe('The wiki in every agent, in a real VS Code extension host', () => {
  let root: string;
  let agents: AgentHooks;
  let chat: ChatHooks;
  let api: RepoWikiApi;

  before(async () => {
    root = workspaceRoot();
    api = await activateExtension();
    agents = api.hooks.agents as AgentHooks;
    chat = api.hooks.chat as ChatHooks;
  });

  it('registers the seven tools as language model tools, and each answers through vscode.lm.invokeTool', async () => {
    const ours = vscode.lm.tools.filter((tool) => tool.tags.includes('repo-wiki')).map((tool) => tool.name).sort();
    assert.deepEqual(ours, [...TOOL_NAMES, 'propose_page_change'].sort());
    const inputs: Record<string, object> = {
      search_wiki: { query: 'errors become responses' }, read_page: { slug: 'request-pipeline' }, read_code: { citation: 'src/errors.ts:toErrorResponse' },
      find_symbol: { name: 'Router' }, grep_code: { pattern: 'HttpError' }, check_drift: { slug: 'errors-become-responses-at-the-edge' }, repo_map: { focus: ['src/errors.ts'] },
    };
    const expected: Record<string, RegExp> = {
      search_wiki: /errors-become-responses-at-the-edge/, read_page: /Request pipeline/, read_code: /function toErrorResponse/,
      find_symbol: /src\/router\.ts:Router/, grep_code: /src\/errors\.ts:\d+:/, check_drift: /signature-changed|no drift|drift/i, repo_map: /^src\/errors\.ts:$/m,
    };
    for (const name of TOOL_NAMES) {
      const text = textOf(await vscode.lm.invokeTool(name, { input: inputs[name], toolInvocationToken: undefined }, noToken));
      assert.doesNotMatch(text, /^Error:/, `${name}: ${text.slice(0, 300)}`);
      assert.match(text, expected[name], `${name}: ${text.slice(0, 300)}`);
    }
  });

  it('repo_map shows a declaration saved in the editor on the next map (the save tells the map)', async () => {
    const map = (tokens: number) => vscode.lm.invokeTool('repo_map', { input: { focus: ['src/errors.ts'], tokens }, toolInvocationToken: undefined }, noToken).then(textOf);
    assert.doesNotMatch(await map(4000), /savedInTheEditor/);
    const file = path.join(root, 'src/errors.ts');
    const before = fs.readFileSync(file, 'utf8');
    const document = await vscode.workspace.openTextDocument(file);
    try {
      const edit = new vscode.WorkspaceEdit();
      edit.insert(document.uri, document.positionAt(document.getText().length), '\nexport function savedInTheEditor(): void {}\n');
      assert.ok(await vscode.workspace.applyEdit(edit));
      assert.ok(await document.save());
      assert.match(await map(4000), /export function savedInTheEditor\(\): void \{\}/);
    } finally {
      fs.writeFileSync(file, before);
    }
  });

  it('a bad or hostile tool input is an error result, and nothing leaks', async () => {
    fs.writeFileSync(path.join(root, '.env'), 'TOKEN=CANARY-LM-TOOL\n');
    try {
      for (const [name, input] of [['read_code', { citation: '../../etc/passwd' }], ['read_code', { citation: '.env' }], ['read_code', { citation: 42 }], ['search_wiki', {}]] as const) {
        const text = textOf(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, noToken));
        assert.match(text, /^Error: /, `${name} ${JSON.stringify(input)}: ${text}`);
        assert.doesNotMatch(text, /CANARY|root:/);
      }
    } finally {
      fs.rmSync(path.join(root, '.env'), { force: true });
    }
  });

  it('@wiki answers on the model the user picked, calling the tools, with the pages and the code it read as references', async () => {
    const { model, requests } = scriptedModel([
      [new vscode.LanguageModelTextPart('Let me read the code. '), new vscode.LanguageModelToolCallPart('call-1', 'read_code', { citation: 'src/errors.ts:toErrorResponse' })],
      [new vscode.LanguageModelTextPart('A thrown HttpError becomes its status in `src/errors.ts:toErrorResponse`.')],
    ]);
    const recorded = recordingStream();
    const result = await agents.participant.handle(chatRequest('What status does a thrown HttpError become?', model), { history: [] } as vscode.ChatContext, recorded.stream, noToken);
    assert.equal(result.errorDetails, undefined, JSON.stringify(result.errorDetails));
    assert.equal(requests.length, 2, 'one round of tools, then the answer');
    assert.deepEqual(requests[0].tools.map((tool) => tool.name), TOOL_NAMES);
    const toolResult = requests[1].messages.at(-1)!.content.find((part) => part instanceof vscode.LanguageModelToolResultPart) as vscode.LanguageModelToolResultPart;
    assert.match((toolResult.content[0] as vscode.LanguageModelTextPart).value, /function toErrorResponse/);
    assert.match(recorded.markdown.join(''), /becomes its status in `src\/errors\.ts:toErrorResponse`/);
    assert.deepEqual(recorded.progress, ['Read src/errors.ts:toErrorResponse']);
    const pages = recorded.references.filter((ref): ref is vscode.Uri => ref instanceof vscode.Uri).map((uri) => path.basename(uri.fsPath));
    assert.ok(pages.includes('errors-become-responses-at-the-edge.md'), pages.join(', '));
    const code = recorded.references.find((ref): ref is vscode.Location => ref instanceof vscode.Location);
    assert.equal(code && path.relative(root, code.uri.fsPath), path.join('src', 'errors.ts'));
    assert.equal((result.metadata as { model: string }).model, 'Test Model (test)', 'the result names the model that answered');
  });

  it('@wiki /drift reports the drift of the whole wiki, each issue anchored on its page', async () => {
    const recorded = recordingStream();
    const result = await agents.participant.handle(chatRequest('', scriptedModel([]).model, 'drift'), { history: [] } as vscode.ChatContext, recorded.stream, noToken);
    assert.match(recorded.markdown[0], /^\d+ citations in \d+ pages: \d+ errors?, \d+ other issues?\./);
    assert.ok((result.metadata as { issues: number }).issues >= 2, 'the demo has drifted citations');
    assert.ok(recorded.anchors.some((anchor) => anchor instanceof vscode.Location && anchor.uri.fsPath.endsWith('errors-become-responses-at-the-edge.md')));
  });

  it('@wiki /save files the exchange as a wiki page', async () => {
    const Request = vscode.ChatRequestTurn as unknown as new (...args: unknown[]) => vscode.ChatRequestTurn;
    const Response = vscode.ChatResponseTurn as unknown as new (...args: unknown[]) => vscode.ChatResponseTurn;
    const history = [
      new Request('How do blue-green deploys roll back?', undefined, [], 'repo-wiki.wiki', []),
      new Response([new vscode.ChatResponseMarkdownPart('They flip the switch back, see `src/pipeline.ts:Pipeline.run`.')], {}, 'repo-wiki.wiki'),
    ];
    const recorded = recordingStream();
    const result = await agents.participant.handle(chatRequest('', scriptedModel([]).model, 'save'), { history } as vscode.ChatContext, recorded.stream, noToken);
    const slug = (result.metadata as { filed: string }).filed;
    assert.equal(slug, 'how-do-blue-green-deploys-roll-back');
    const page = fs.readFileSync(path.join(root, '.wiki', 'pages', `${slug}.md`), 'utf8');
    assert.match(page, /They flip the switch back/);
    assert.match(recorded.markdown.join(''), /Saved to the wiki as \[\[how-do-blue-green-deploys-roll-back\]\]/);
  });

  it('with repoWiki.llm.provider "vscode" and no VS Code model, the chat answers offline and says what to do', async () => {
    const llm = vscode.workspace.getConfiguration('repoWiki.llm');
    await llm.update('provider', 'vscode', vscode.ConfigurationTarget.Global);
    try {
      assert.deepEqual(await vscode.lm.selectChatModels({}), [], 'this test host offers no language model');
      const requestId = 'agents-offline-1';
      const posted: HostToWebview[] = [];
      const subscription = chat.onDidPost((message) => posted.push(message));
      await chat.send({ type: 'ask', requestId, question: 'How do errors become HTTP responses?' });
      subscription.dispose();
      const done = posted.find((m): m is Extract<HostToWebview, { type: 'turnDone' }> => m.type === 'turnDone' && m.requestId === requestId);
      assert.ok(done, JSON.stringify(posted.filter((m) => m.type === 'turnFailed')));
      assert.equal(done.turn.offline, true);
      assert.match(done.turn.answer, /a VS Code language model is needed \(the model is vscode\/…\)/);
    } finally {
      await llm.update('provider', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('"Add the wiki\'s MCP server" merges the server into .vscode/mcp.json, keeping what was there, and never clobbers a broken file', async () => {
    const file = path.join(root, '.vscode', 'mcp.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const original = '{\n  // our team servers\n  "servers": {\n    "other": { "type": "stdio", "command": "other-server" }\n  }\n}\n';
    fs.writeFileSync(file, original);
    const added = await vscode.commands.executeCommand<{ outcome: string }>('repoWiki.addMcpServer');
    assert.equal(added?.outcome, 'added');
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /\/\/ our team servers/, 'comments are kept');
    assert.match(text, /"other": \{\s*"type": "stdio",\s*"command": "other-server"\s*\}/, 'the other server is kept');
    // No repo-wiki is installed here: the entry runs the extension's own bundled CLI, and it serves.
    const entry = (JSON.parse(text.replace(/^\s*\/\/.*$/gm, '')) as { servers: Record<string, { command: string; args: string[]; env?: Record<string, string> }> }).servers['repo-wiki'];
    assert.equal(entry.args[0], path.join(vscode.extensions.getExtension('repo-wiki.repo-wiki')!.extensionPath, 'dist', 'cli.js'));
    assert.deepEqual(entry.args.slice(1), ['mcp', '--workspace', '${workspaceFolder}']);
    assert.match(await firstMcpAnswer(entry, root), /"serverInfo":\{"name":"repo-wiki"/);
    const again = await vscode.commands.executeCommand<{ outcome: string }>('repoWiki.addMcpServer');
    assert.equal(again?.outcome, 'present');
    assert.equal(fs.readFileSync(file, 'utf8'), text);
    fs.writeFileSync(file, '{ "servers": { broken');
    assert.equal(await vscode.commands.executeCommand('repoWiki.addMcpServer'), undefined);
    assert.equal(fs.readFileSync(file, 'utf8'), '{ "servers": { broken', 'a file that does not parse is left as it is');
    fs.rmSync(file, { force: true });
  });

  it('a proposal from propose_page_change shows in the Pages view and is accepted through the diff review, logged with its agent', async () => {
    const body = '# Status codes\n\nA thrown HttpError carries its status; `src/errors.ts:toErrorResponse` turns it into the response.\n';
    const text = textOf(await vscode.lm.invokeTool('propose_page_change', {
      input: { slug: 'status-codes', title: 'Status codes', topic: 'patterns', summary: 'Where HTTP status codes come from.', body, reason: 'Learned while fixing a 404.' },
      toolInvocationToken: undefined,
    }, noToken));
    assert.doesNotMatch(text, /^Error:/, text);
    assert.equal(fs.existsSync(path.join(root, '.wiki', 'pages', 'status-codes.md')), false, 'nothing is written before the review');
    const tree = new PagesTreeProvider(api.services);
    const [first] = await tree.getChildren();
    assert.equal(tree.getTreeItem(first).label, '1 proposal to review');
    const [proposalNode] = await tree.getChildren(first);
    const item = tree.getTreeItem(proposalNode);
    assert.equal(item.label, 'Status codes');
    assert.equal(item.description, 'status-codes · vscode:agent');

    const ingest = api.hooks.ingest as IngestHooks;
    const reviewed: string[][] = [];
    ingest.setChangeChooser(async (changes) => {
      reviewed.push(changes.map((change) => `${change.kind} ${change.slug}`));
      return changes.map((change) => change.slug);
    });
    try {
      const result = await vscode.commands.executeCommand<{ accepted: boolean }>('repoWiki.reviewProposal', item.command!.arguments![0]);
      assert.deepEqual(result, { accepted: true });
    } finally {
      ingest.setChangeChooser(undefined);
    }
    assert.deepEqual(reviewed, [['create status-codes']]);
    assert.match(fs.readFileSync(path.join(root, '.wiki', 'pages', 'status-codes.md'), 'utf8'), /"src\/errors\.ts:toErrorResponse": "sig:/, 'citations are stamped');
    const log = fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual([log.at(-1).op, log.at(-1).agent, log.at(-1).pages], ['proposal', 'vscode:agent', ['status-codes']]);
    assert.deepEqual(fs.readdirSync(path.join(root, '.wiki', '.cache', 'proposals')), [], 'the accepted proposal is gone');
  });

  it('a proposal made over MCP (the real server, the SDK client) shows in VS Code and can be rejected there', async () => {
    const { Client } = require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js') as typeof import('@modelcontextprotocol/sdk/client/stdio.js');
    const cli = path.join(vscode.extensions.getExtension('repo-wiki.repo-wiki')!.extensionPath, 'dist', 'cli.js');
    const client = new Client({ name: 'claude-code', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--workspace', root], stderr: 'ignore', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } as Record<string, string> }));
    try {
      const result = await client.callTool({ name: 'propose_page_change', arguments: {
        slug: 'router-errors', title: 'Router errors', topic: 'gotchas', summary: 'The router throws 404 and 405.', body: 'See `src/router.ts:Router.handle`.\n', reason: 'Found while reading the router.',
      } });
      assert.equal(result.isError, false, JSON.stringify(result.content));
    } finally {
      await client.close();
    }
    const { proposals } = await api.services.proposals.list((await api.services.wikis.existing())[0]);
    const proposal = proposals.find((candidate) => candidate.page.slug === 'router-errors');
    assert.equal(proposal?.agent, 'mcp:claude-code');
    assert.equal(await vscode.commands.executeCommand('repoWiki.rejectProposal', { root, id: proposal!.id, confirmed: true }), true);
    assert.deepEqual((await api.services.proposals.list((await api.services.wikis.existing())[0])).proposals, []);
    assert.equal(fs.existsSync(path.join(root, '.wiki', 'pages', 'router-errors.md')), false);
  });
});

/** Starts a server as an mcp.json entry says (with the workspace folder filled in) and returns its answer to initialize. */
function firstMcpAnswer(entry: { command: string; args: string[]; env?: Record<string, string> }, folder: string): Promise<string> {
  const server = spawn(entry.command, entry.args.map((arg) => arg.replace('${workspaceFolder}', folder)), { env: { ...process.env, ...entry.env }, stdio: ['pipe', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      server.kill();
      reject(new Error(`no answer to initialize within 20 s; stdout: ${out}`));
    }, 20000);
    server.on('error', reject);
    server.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      server.kill();
      resolve(out);
    });
    server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'integration', version: '1' } } })}\n`);
  });
}
