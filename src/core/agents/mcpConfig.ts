import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { WikiError } from '../errors';

export const MCP_SERVER_NAME = 'repo-wiki';

/** How VS Code starts the server: from the repository's own dependencies, in the workspace folder. */
export const MCP_SERVER_ENTRY = { type: 'stdio', command: 'npx', args: ['repo-wiki', 'mcp', '--workspace', '${workspaceFolder}'] } as const;

/**
 * `.vscode/mcp.json` with the wiki's MCP server added, keeping everything else in the file as it
 * was (comments and formatting included). An entry of that name is left alone; a file that is not
 * valid JSONC is refused, never overwritten.
 */
export function addMcpServer(existing: string | undefined): { text: string; outcome: 'added' | 'present' } {
  const text = existing?.trim() ? existing : '{}\n';
  const errors: ParseError[] = [];
  const config = parse(text, errors, { allowTrailingComma: true }) as unknown;
  if (errors.length || typeof config !== 'object' || config === null || Array.isArray(config)) {
    const detail = errors.length ? `${printParseErrorCode(errors[0].error)} at offset ${errors[0].offset}` : 'it is not a JSON object';
    throw new WikiError('invalid-mcp-config', `.vscode/mcp.json could not be read (${detail}), so it was left as it is.`, 'Fix the file, or add the server by hand as docs/mcp-and-agents.md shows.');
  }
  const servers = (config as { servers?: unknown }).servers;
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) {
    throw new WikiError('invalid-mcp-config', '.vscode/mcp.json has a "servers" entry that is not an object, so it was left as it is.', 'Fix the file, or add the server by hand as docs/mcp-and-agents.md shows.');
  }
  if (servers && Object.hasOwn(servers, MCP_SERVER_NAME)) return { text, outcome: 'present' };
  const edits = modify(text, ['servers', MCP_SERVER_NAME], MCP_SERVER_ENTRY, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } });
  return { text: applyEdits(text, edits), outcome: 'added' };
}
