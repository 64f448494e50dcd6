import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { proposePageChangeTool } from '../../../src/core/tools/proposePageChange';
import { openLocalCore } from '../../../src/adapters/localCore';
import type { WikiTool } from '../../../src/core/tools';
import { CLI } from '../../support/cliProcess';

const DEMO = path.resolve(__dirname, '../../../../demo');
const SECRET = 'TOPSECRET-4f1c';
const TOOL_NAMES = ['search_wiki', 'read_page', 'read_code', 'find_symbol', 'grep_code', 'check_drift', 'repo_map', 'propose_page_change'];
const PAGE_SLUGS = fs.readdirSync(path.join(DEMO, '.wiki/pages')).map((name) => name.replace(/\.md$/, '')).sort();

/** A copy of demo/ with what a hostile branch could bring: a secret, links out of the workspace, a FIFO page. */
function hostileDemoCopy(): { ws: string; outside: string } {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-mcp-'));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-mcp-outside-'));
  fs.cpSync(DEMO, ws, { recursive: true });
  fs.writeFileSync(path.join(outside, 'secret.ts'), `export const KEY = '${SECRET}';\n`);
  fs.writeFileSync(path.join(outside, 'page.md'), `---\ntitle: ${SECRET}\n---\n${SECRET}\n`);
  fs.writeFileSync(path.join(ws, '.env'), `API_KEY=${SECRET}\n`);
  fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(ws, 'src/linked.ts'));
  fs.symlinkSync(path.join(outside, 'page.md'), path.join(ws, '.wiki/pages/linked-out.md'));
  assert.equal(spawnSync('mkfifo', [path.join(ws, '.wiki/pages/a-fifo.md')]).status, 0);
  return { ws, outside };
}

function textOf(result: unknown): string {
  const { content } = result as CallToolResult;
  assert.equal(content.length, 1);
  assert.equal(content[0].type, 'text');
  return (content[0] as { text: string }).text;
}

describe('repo-wiki mcp', function () {
  this.timeout(20000);
  let ws: string;
  let outside: string;
  let client: Client;
  let tools: Map<string, WikiTool>;

  before(async () => {
    ({ ws, outside } = hostileDemoCopy());
    const core = openLocalCore(ws);
    tools = new Map([...core.tools(), proposePageChangeTool(core.proposals, 'mcp:repo-wiki-test')].map((tool) => [tool.name, tool]));
    client = new Client({ name: 'repo-wiki-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', ws], stderr: 'ignore' }));
  });

  after(async () => {
    await client.close();
    for (const dir of [ws, outside]) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists the core tools with their names, descriptions and input schemas exactly', async () => {
    const { tools: listed } = await client.listTools();
    assert.deepEqual(listed.map((tool) => tool.name), TOOL_NAMES);
    for (const tool of listed) {
      const definition = tools.get(tool.name)!;
      assert.equal(tool.description, definition.description);
      assert.deepEqual(tool.inputSchema, definition.inputSchema);
    }
  });

  it('answers every tool as the tool does in-process', async () => {
    const inputs: Record<string, Record<string, unknown>> = {
      search_wiki: { query: 'middleware order' },
      read_page: { slug: 'request-pipeline' },
      read_code: { citation: 'src/errors.ts:HttpError' },
      find_symbol: { name: 'toErrorResponse' },
      grep_code: { pattern: 'class \\w+Error' },
      check_drift: { slug: 'errors-become-responses-at-the-edge' },
    };
    for (const [name, input] of Object.entries(inputs)) {
      const [served, direct] = await Promise.all([client.callTool({ name, arguments: input }), tools.get(name)!.run(input)]);
      assert.equal(direct.ok, true, `${name}: ${direct.text}`);
      assert.equal(served.isError, false, name);
      assert.equal(textOf(served), direct.text, name);
    }
  });

  it('stores a proposal from propose_page_change for review, named after the client, and writes no page', async () => {
    const result = await client.callTool({ name: 'propose_page_change', arguments: {
      slug: 'status-codes', title: 'Status codes', topic: 'patterns', summary: 'Where HTTP status codes come from.',
      body: '# Status codes\n\nErrors carry their status; see `src/errors.ts:toErrorResponse`.\n', reason: 'Learned while fixing a 404.',
    } });
    assert.equal(result.isError, false, textOf(result));
    const [file] = fs.readdirSync(path.join(ws, '.wiki', '.cache', 'proposals'));
    const stored = JSON.parse(fs.readFileSync(path.join(ws, '.wiki', '.cache', 'proposals', file), 'utf8'));
    assert.equal(stored.agent, 'mcp:repo-wiki-test');
    assert.match(textOf(result), new RegExp(stored.id));
    assert.equal(fs.existsSync(path.join(ws, '.wiki', 'pages', 'status-codes.md')), false, 'nothing is written to the wiki');
    const refused = await client.callTool({ name: 'propose_page_change', arguments: { slug: 'x', title: 'X', topic: 'patterns', summary: 'X', body: 'See `src/nope.ts:Invented`.', reason: 'r' } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /src\/nope\.ts/);
  });

  it('answers hostile and invalid input with error results that leak nothing', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['read_code', { citation: '../outside/secret.ts' }],
      ['read_code', { citation: `${path.relative(ws, outside)}/secret.ts` }],
      ['read_code', { citation: '.env' }],
      ['read_code', { citation: 'src/linked.ts' }],
      ['read_code', { citation: '.git/config' }],
      ['read_page', { slug: 'linked-out' }],
      ['read_page', { slug: 'a-fifo' }],
      ['read_page', { slug: '../../.env' }],
      ['check_drift', { slug: 'a-fifo' }],
      ['find_symbol', { name: 42 }],
      ['search_wiki', {}],
      ['grep_code', { pattern: `${SECRET.slice(0, -1)}.` }],
      ['no_such_tool', {}],
    ];
    for (const [name, input] of calls) {
      const result = await client.callTool({ name, arguments: input });
      const label = `${name} ${JSON.stringify(input)}`;
      if (name === 'grep_code') assert.match(textOf(result), /^No line matches/, label);
      else assert.equal(result.isError, true, `${label}: ${textOf(result)}`);
      assert.doesNotMatch(textOf(result), new RegExp(SECRET), label);
      const direct = tools.get(name);
      if (direct) assert.equal(textOf(result), (await direct.run(input)).text, `${label}: the same refusal as in-process`);
    }
    assert.match(textOf(await client.callTool({ name: 'no_such_tool', arguments: {} })), /no tool "no_such_tool"/);
  });

  it('lists every readable page, the index and the schema as resources, and reads them as on disk', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), ['wiki://index', 'wiki://schema', ...PAGE_SLUGS.map((slug) => `wiki://pages/${slug}`)].sort());
    assert.ok(resources.every((r) => r.mimeType === 'text/markdown'));
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['wiki://pages/{slug}']);
    const read = async (uri: string) => (await client.readResource({ uri })).contents[0] as { uri: string; mimeType: string; text: string };
    const page = await read('wiki://pages/request-pipeline');
    assert.equal(page.text, fs.readFileSync(path.join(ws, '.wiki/pages/request-pipeline.md'), 'utf8'));
    assert.equal(page.mimeType, 'text/markdown');
    assert.equal((await read('wiki://index')).text, fs.readFileSync(path.join(ws, '.wiki/index.md'), 'utf8'));
    assert.equal((await read('wiki://schema')).text, fs.readFileSync(path.join(ws, '.wiki/SCHEMA.md'), 'utf8'));
  });

  it('answers a missing, refused or malformed page resource with a resource error', async () => {
    for (const uri of ['wiki://pages/nowhere', 'wiki://pages/linked-out', 'wiki://pages/a-fifo', 'wiki://pages/Not_A_Slug', 'wiki://pages/%2E%2E%2F.env']) {
      await assert.rejects(client.readResource({ uri }), (error: unknown) => {
        assert.ok(error instanceof McpError, uri);
        assert.equal(error.code, -32002, uri);
        assert.doesNotMatch(error.message, new RegExp(SECRET), uri);
        return true;
      });
    }
  });

  it('sees a page edited while it runs on the next search and read', async () => {
    const file = path.join(ws, '.wiki/pages/router-trailing-slashes.md');
    fs.appendFileSync(file, '\nThe zebracorn rule: a trailing slash is kept.\n');
    const found = textOf(await client.callTool({ name: 'search_wiki', arguments: { query: 'zebracorn' } }));
    assert.match(found, /router-trailing-slashes/);
    const { contents } = await client.readResource({ uri: 'wiki://pages/router-trailing-slashes' });
    assert.match((contents[0] as { text: string }).text, /zebracorn rule/);
  });

  it('writes only JSON-RPC messages to stdout and exits 0 when stdin closes', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp', '--workspace', ws], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const answered = (count: number) => new Promise<void>((resolve) => {
      const check = () => (stdout.split('\n').filter(Boolean).length >= count ? resolve() : setTimeout(check, 10));
      check();
    });
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    await answered(1);
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'search_wiki', arguments: { query: 'pipeline' } } });
    send({ id: 3, method: 'resources/read', params: { uri: 'wiki://pages/request-pipeline' } });
    await answered(3);
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end();
    assert.equal(await exited, 0, stderr);
    const messages = stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { jsonrpc: string; id: number; error?: unknown });
    assert.deepEqual(messages.map((m) => m.jsonrpc), ['2.0', '2.0', '2.0']);
    assert.deepEqual(messages.map((m) => m.id).sort(), [1, 2, 3]);
    assert.ok(messages.every((m) => !m.error));
    assert.ok(stdout.endsWith('\n'));
    assert.match(stderr, /repo-wiki MCP server/);
  });
});
