import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { LocalCore } from '../adapters/localCore';
import { PageListWatcher } from '../mcp/pageListWatcher';
import { createWikiMcpServer } from '../mcp/wikiMcpServer';
import { noWikiMessage, pageResources } from '../mcp/wikiResources';
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
  // The server advertises resources.listChanged: clients hear of pages added, removed or retitled, from before the first request.
  const pages = new PageListWatcher(core.wiki.pagesDir, async () => JSON.stringify(await pageResources(core)), () => server.sendResourceListChanged(), log);
  pages.start();
  await server.connect(new StdioServerTransport());
  log(`repo-wiki MCP server: serving ${core.root} on stdio`);
  if (!(await core.wiki.exists())) log(`repo-wiki mcp: ${noWikiMessage(core.root)}`);
  await stdinClosed;
  pages.close();
  await server.close();
  return 0;
}
