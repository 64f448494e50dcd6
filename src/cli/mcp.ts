import * as fs from 'node:fs';
import * as path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { LocalCore } from '../adapters/localCore';
import { createWikiMcpServer } from '../mcp/wikiMcpServer';

/**
 * `repo-wiki mcp`: serves the wiki over stdio until the client closes stdin. stdout carries only
 * protocol messages; the notice and any log line go to stderr through `log`.
 */
export async function mcpCommand(core: LocalCore, log: (line: string) => void): Promise<number> {
  const server = createWikiMcpServer(core, { version: packageVersion(), proposals: true });
  const stdinClosed = new Promise<void>((resolve) => process.stdin.once('end', resolve));
  server.server.onerror = (error) => log(`repo-wiki mcp: ${error.message}`);
  await server.connect(new StdioServerTransport());
  log(`repo-wiki MCP server: serving ${core.root} on stdio`);
  await stdinClosed;
  await server.close();
  return 0;
}

/** The bundle sits in dist/, next to the package's package.json, as the wiki template does. */
function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}
