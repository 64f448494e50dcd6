import type { CliCommand } from '../command';

/** `repo-wiki mcp`: the wiki served to agents on stdio, until the client closes stdin. */
export const mcp: CliCommand = {
  name: 'mcp',
  summary: 'serve the wiki to agents over stdio (MCP)',
  description: 'A Model Context Protocol server, offering the read-only tools, propose_page_change, and the pages, index and schema as resources. stdout carries only protocol messages; notices go to stderr.',
  usage: '',
  workspace: 'wiki-if-any',
  options: [],
  async run({ core }, io) {
    // The server and its SDK are dist/mcp.js beside the CLI (see esbuild.mjs), loaded for this command only.
    // require, not import(): Node's import() of a CommonJS file runs its ESM loader's lexer over the
    // whole megabyte, which was a third of the server's start.
    const { serveMcp } = require('../serveMcp') as typeof import('../serveMcp');
    return serveMcp(await core(), io.err);
  },
};
