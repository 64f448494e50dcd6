import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { LocalCore } from '../adapters/localCore';
import { isFileAccessError } from '../core/errors';
import { slugProblem } from '../core/pages/slug';
import { buildIndex, renderIndexMarkdown } from '../core/index/wikiIndex';

/** The MCP specification's code for a resource that does not exist (the SDK has no name for it). */
const RESOURCE_NOT_FOUND = -32002;
const MARKDOWN = 'text/markdown';
const PAGE_URI_PREFIX = 'wiki://pages/';

/**
 * The pages as `wiki://pages/<slug>` (the file's text as on disk), `wiki://index` and
 * `wiki://schema`. A page the file access refuses (a link out, a FIFO, too large) is neither
 * listed nor read; every read goes through the wiki, so through the guarded file access.
 */
export function registerWikiResources(server: McpServer, core: LocalCore): void {
  const pageTemplate = new ResourceTemplate(`${PAGE_URI_PREFIX}{slug}`, { list: async () => ({ resources: await pageResources(core) }) });
  server.registerResource('page', pageTemplate, { title: 'Wiki page', description: 'One wiki page: markdown with YAML frontmatter.', mimeType: MARKDOWN }, async (uri, { slug }) =>
    markdown(uri.href, await pageText(core, typeof slug === 'string' ? slug : '')),
  );
  // Rendered from the current pages rather than read from index.md, so it is never stale or conflicted and nothing is written.
  server.registerResource('index', 'wiki://index', { title: 'Wiki index', description: 'The catalog of pages by topic, as index.md has it.', mimeType: MARKDOWN }, async (uri) => {
    if (!(await core.wiki.exists())) throw new McpError(RESOURCE_NOT_FOUND, noWikiMessage(core.root));
    return markdown(uri.href, renderIndexMarkdown(buildIndex(await core.pages())));
  });
  server.registerResource('schema', 'wiki://schema', { title: 'Wiki schema', description: "SCHEMA.md: the wiki's conventions (its first 32 KB).", mimeType: MARKDOWN }, async (uri) => {
    if (!(await core.wiki.exists())) throw new McpError(RESOURCE_NOT_FOUND, noWikiMessage(core.root));
    const schema = await core.wiki.readSchema();
    if (schema === undefined) throw new McpError(RESOURCE_NOT_FOUND, 'This wiki has no SCHEMA.md.');
    return markdown(uri.href, schema);
  });
}

/** The pages as the resource list names them: a readable page's slug, title and summary. */
export async function pageResources(core: LocalCore) {
  return (await core.pages())
    .filter((page) => page.readable)
    .map((page) => ({ uri: `${PAGE_URI_PREFIX}${page.slug}`, name: page.slug, title: page.frontmatter.title ?? page.slug, description: page.frontmatter.summary, mimeType: MARKDOWN }));
}

/** What every wiki tool and resource says in a folder with no wiki yet. */
export function noWikiMessage(root: string): string {
  return `There is no .wiki/ folder in ${root} yet. Run "repo-wiki init" there (in VS Code: "Repo Wiki: Initialise wiki in this workspace") to start one. Meanwhile read_code, grep_code, find_symbol and repo_map read the code without a wiki.`;
}

/** The page file's text; a missing page or one the file access refuses is a resource error that names why, never content. */
async function pageText(core: LocalCore, slug: string): Promise<string> {
  const problem = slugProblem(slug);
  if (problem) throw new McpError(RESOURCE_NOT_FOUND, `"${slug}" is not a page slug: ${problem}.`);
  // Read as a page first: that is where an unreadable page (refused, binary, over the page cap) shows.
  const page = await core.wiki.readPage(slug);
  if (!page) throw new McpError(RESOURCE_NOT_FOUND, `There is no wiki page "${slug}".`);
  if (!page.readable) throw new McpError(RESOURCE_NOT_FOUND, `The page "${slug}" cannot be read: ${page.problems.map((p) => p.message).join(' ')}`);
  const text = await core.wiki.readPageText(slug).catch((error: unknown) => {
    // Swapped for a link or a FIFO between the two reads.
    if (isFileAccessError(error)) throw new McpError(RESOURCE_NOT_FOUND, error.userMessage);
    throw error;
  });
  if (text === undefined) throw new McpError(RESOURCE_NOT_FOUND, `There is no wiki page "${slug}".`);
  return text;
}

function markdown(uri: string, text: string): ReadResourceResult {
  return { contents: [{ uri, mimeType: MARKDOWN, text }] };
}
