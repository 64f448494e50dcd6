import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

// The server as agent hosts meet it: started from a subfolder, in a folder with no wiki yet, and
// telling its client when the list of pages changes.
describe('repo-wiki mcp, as agent hosts start it', function () {
  this.timeout(30000);
  const clients: Client[] = [];

  async function connect(cwd: string, args: string[] = []): Promise<Client> {
    const client = new Client({ name: 'repo-wiki-host-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], cwd, stderr: 'ignore' }));
    clients.push(client);
    return client;
  }

  function text(result: unknown): { text: string; isError: boolean } {
    const { content, isError } = result as CallToolResult;
    return { text: (content[0] as { text: string }).text, isError: isError === true };
  }

  /** A git repository with source files and, when asked, a wiki. */
  function repository(withWiki: boolean): string {
    const ws = tempDir('repo-wiki-mcp-hosts-');
    execFileSync('git', ['init', '-q'], { cwd: ws });
    fs.mkdirSync(path.join(ws, 'src', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'src/auth.ts'), 'export function login(user: string) {\n  return user.length > 0;\n}\n');
    if (withWiki) execFileSync(process.execPath, [CLI, 'init', '--workspace', ws]);
    return ws;
  }

  after(async () => {
    for (const client of clients) await client.close();
  });

  it('in a folder without .wiki/, starts anyway: the code tools answer, every wiki tool says to run repo-wiki init', async () => {
    const ws = repository(false);
    const client = await connect(ws);
    const code = text(await client.callTool({ name: 'read_code', arguments: { citation: 'src/auth.ts:login' } }));
    assert.equal(code.isError, false, code.text);
    assert.match(code.text, /return user\.length > 0/);
    assert.equal(text(await client.callTool({ name: 'find_symbol', arguments: { name: 'login' } })).isError, false);
    assert.equal(text(await client.callTool({ name: 'grep_code', arguments: { pattern: 'login' } })).isError, false);
    const map = text(await client.callTool({ name: 'repo_map', arguments: {} }));
    assert.equal(map.isError, false, map.text);
    assert.match(map.text, /^src\/auth\.ts:$/m);
    for (const [name, args] of [['search_wiki', { query: 'login' }], ['read_page', { slug: 'welcome' }], ['check_drift', {}], ['propose_page_change', { slug: 'auth', title: 'Auth', summary: 'Login.', body: '# Auth\n', reason: 'new' }]] as const) {
      const answer = text(await client.callTool({ name, arguments: args }));
      assert.equal(answer.isError, true, `${name}: ${answer.text}`);
      assert.match(answer.text, new RegExp(`There is no \\.wiki/ folder in ${ws.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} yet\\. Run "repo-wiki init" there`), name);
    }
    assert.deepEqual((await client.listResources()).resources.map((resource) => resource.uri), ['wiki://index', 'wiki://schema'], 'no page');
    for (const uri of ['wiki://index', 'wiki://schema']) await assert.rejects(client.readResource({ uri }), /There is no \.wiki\/ folder/);
  });

  it('started from a subfolder, serves the wiki found above it, as git finds .git', async () => {
    const ws = repository(true);
    const client = await connect(path.join(ws, 'src', 'deep'));
    const page = text(await client.callTool({ name: 'read_page', arguments: { slug: 'welcome' } }));
    assert.equal(page.isError, false, page.text);
    assert.ok((await client.listResources()).resources.some((resource) => resource.uri === 'wiki://pages/welcome'));
  });

  it('advertises resources.listChanged and sends it when a page is added, retitled or removed, not when only a body changes', async () => {
    const ws = repository(true);
    const client = await connect(ws, ['--workspace', ws]);
    assert.equal(client.getServerCapabilities()?.resources?.listChanged, true);
    let notices = 0;
    let heard: () => void = () => undefined;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      notices++;
      heard();
    });
    const next = () => new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no notifications/resources/list_changed within 5 s')), 5000);
      heard = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    const page = path.join(ws, '.wiki/pages/auth.md');
    const write = (title: string, body: string) => fs.writeFileSync(page, `---\ntitle: ${title}\nsummary: Login.\n---\n# ${title}\n\n${body}\n`);

    let heardOne = next();
    write('Auth', 'First.');
    await heardOne;
    assert.ok((await client.listResources()).resources.some((resource) => resource.uri === 'wiki://pages/auth'));

    const before = notices;
    write('Auth', 'A body edit, the list unchanged.');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(notices, before, 'no notice for an edit that leaves the list as it was');

    heardOne = next();
    write('Authentication', 'Retitled.');
    await heardOne;
    heardOne = next();
    fs.rmSync(page);
    await heardOne;
    assert.ok(!(await client.listResources()).resources.some((resource) => resource.uri === 'wiki://pages/auth'));
  });

  it('sees a wiki created while it runs: the wiki tools answer after init, and the client hears of the new pages', async () => {
    const ws = repository(false);
    const client = await connect(ws);
    assert.equal(text(await client.callTool({ name: 'search_wiki', arguments: { query: 'welcome' } })).isError, true);
    const heard = new Promise<void>((resolve) => client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
    execFileSync(process.execPath, [CLI, 'init', '--workspace', ws]);
    await heard;
    const page = text(await client.callTool({ name: 'read_page', arguments: { slug: 'welcome' } }));
    assert.equal(page.isError, false, page.text);
  });
});
