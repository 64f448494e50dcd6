import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { LocalCore } from '../adapters/localCore';
import { createWikiMcpServer } from '../mcp/wikiMcpServer';
import { packageVersion } from './bundle';

/**
 * `repo-wiki mcp`: serves the wiki over stdio until the client closes stdin. stdout carries only
 * protocol messages; the notice and any log line go to stderr through `log`. Built as dist/mcp.js,
 * its own bundle, so the MCP SDK is read only by this command.
 */
export async function serveMcp(core: LocalCore, log: (line: string) => void): Promise<number> {
  const server = createWikiMcpServer(core, { version: packageVersion(), proposals: true });
  const stdinClosed = new Promise<void>((resolve) => process.stdin.once('end', resolve));
  server.server.onerror = (error) => log(`repo-wiki mcp: ${error.message}`);
  await server.connect(new StdioServerTransport());
  log(`repo-wiki MCP server: serving ${core.root} on stdio`);
  await stdinClosed;
  await server.close();
  return 0;
}
