import * as assert from 'node:assert/strict';
import { parse } from 'jsonc-parser';
import { addMcpServer, MCP_SERVER_ENTRY } from '../../../../src/core/agents/mcpConfig';
import { WikiError } from '../../../../src/core/errors';

describe('adding the MCP server to .vscode/mcp.json', () => {
  it('creates the file when there is none', () => {
    const { text, outcome } = addMcpServer(undefined);
    assert.equal(outcome, 'added');
    assert.deepEqual(parse(text), { servers: { 'repo-wiki': MCP_SERVER_ENTRY } });
  });

  it('keeps comments, other servers and inputs, and adds only its own entry', () => {
    const existing = '{\n  // team servers\n  "inputs": [{ "id": "token", "type": "promptString" }],\n  "servers": {\n    "db": { "type": "stdio", "command": "db-mcp" }, // the database\n  },\n}\n';
    const { text, outcome } = addMcpServer(existing);
    assert.equal(outcome, 'added');
    assert.match(text, /\/\/ team servers/);
    assert.match(text, /\/\/ the database/);
    assert.deepEqual(parse(text, [], { allowTrailingComma: true }), {
      inputs: [{ id: 'token', type: 'promptString' }],
      servers: { db: { type: 'stdio', command: 'db-mcp' }, 'repo-wiki': MCP_SERVER_ENTRY },
    });
  });

  it('leaves an existing entry of the same name as it is', () => {
    const existing = '{ "servers": { "repo-wiki": { "type": "stdio", "command": "my-own" } } }';
    assert.deepEqual(addMcpServer(existing), { text: existing, outcome: 'present' });
  });

  it('refuses a file that does not parse, or whose servers is not an object, saying so', () => {
    for (const broken of ['{ "servers": { broken', '[1, 2]', '{ "servers": [] }']) {
      assert.throws(() => addMcpServer(broken), (error: unknown) => error instanceof WikiError && error.code === 'invalid-mcp-config' && /left as it is/.test(error.message), broken);
    }
  });
});
