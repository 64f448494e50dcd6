import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { WikiError } from '../errors';

export const MCP_SERVER_NAME = 'repo-wiki';

/** A stdio server entry of `.vscode/mcp.json`. */
export interface McpServerEntry {
  type: 'stdio';
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * What starts the server on this machine, without the package registry (where Repo Wiki is not
 * published, so `npx repo-wiki` cannot work): an installed `repo-wiki` (the workspace's own, or one
 * on the PATH), else the CLI the extension bundles, run by `node`, or by VS Code's own runtime
 * as Node where there is no `node`.
 */
export type McpLaunch =
  | { kind: 'installed'; command: string }
  | { kind: 'bundled'; runtime: string; cli: string; runtimeIsElectron: boolean };

/** What every form of the entry runs: the server, on the folder VS Code opens. */
const SERVE_ARGS = ['mcp', '--workspace', '${workspaceFolder}'];

export function mcpServerEntry(launch: McpLaunch): McpServerEntry {
  if (launch.kind === 'installed') return { type: 'stdio', command: launch.command, args: [...SERVE_ARGS] };
  return { type: 'stdio', command: launch.runtime, args: [launch.cli, ...SERVE_ARGS], ...(launch.runtimeIsElectron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {}) };
}

/** What "Add the wiki's MCP server" does with `.vscode/mcp.json`. */
export type McpServerPlan =
  /** No entry of that name: `text` is the file with it added. */
  | { outcome: 'added'; text: string }
  /** The entry is already the one this command writes: `text` is the file as it is. */
  | { outcome: 'present'; text: string }
  /**
   * The entry is one this command wrote before, for another way of starting the server (the
   * extension's CLI of a version since updated, `npx repo-wiki`): `text` is the file with it
   * replaced. Replacing it with the server as it starts now trusts nothing in the old entry.
   */
  | { outcome: 'updated'; text: string }
  /**
   * An entry of that name that is not this command's (another command, arguments, environment,
   * or a URL): `text` is the file as it is, `replaced` the file with the entry replaced, and
   * `existing` what the entry runs, for the person to judge before anything starts it.
   */
  | { outcome: 'different'; text: string; replaced: string; existing: string };

/** The bundled CLI in an installed copy of this extension (publisher.name-version, any platform's separators). */
const EXTENSION_CLI = /[\\/][\w.-]*repo-wiki-\d+\.\d+\.\d+[\w.-]*[\\/]dist[\\/]cli\.js$/;

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };

/**
 * `.vscode/mcp.json` with the wiki's MCP server added, keeping everything else in the file as it
 * was (comments and formatting included). An entry of that name is never trusted by its name
 * alone: the file comes with the repository, and a "repo-wiki" entry may run anything; unless it
 * is exactly the entry this command writes, the answer is `different`, and the caller asks. A file
 * that is not valid JSONC is refused, never overwritten.
 */
export function addMcpServer(existing: string | undefined, serverEntry: McpServerEntry): McpServerPlan {
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
  const withEntry = () => applyEdits(text, modify(text, ['servers', MCP_SERVER_NAME], serverEntry, FORMAT));
  if (!servers || !Object.hasOwn(servers, MCP_SERVER_NAME)) return { outcome: 'added', text: withEntry() };
  const entry = (servers as Record<string, unknown>)[MCP_SERVER_NAME];
  if (sameJson(entry, serverEntry)) return { outcome: 'present', text };
  if (isEarlierEntry(entry)) return { outcome: 'updated', text: withEntry() };
  return { outcome: 'different', text, replaced: withEntry(), existing: describeServer(entry) };
}

/**
 * An entry this command wrote before, exactly in one of its earlier forms: `npx repo-wiki mcp`, or
 * a runtime running the `dist/cli.js` of an installed Repo Wiki extension (`…/repo-wiki-0.1.0/…`).
 */
function isEarlierEntry(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return false;
  const { type, command, args, env, ...rest } = entry as Record<string, unknown>;
  if (type !== 'stdio' || Object.keys(rest).length || typeof command !== 'string' || !Array.isArray(args)) return false;
  if (command === 'npx') return env === undefined && sameJson(args, ['repo-wiki', ...SERVE_ARGS]);
  const electronOnly = env === undefined || sameJson(env, { ELECTRON_RUN_AS_NODE: '1' });
  return electronOnly && args.length === 4 && typeof args[0] === 'string' && EXTENSION_CLI.test(args[0]) && sameJson(args.slice(1), SERVE_ARGS);
}

/** Deep equality of JSON values, key order aside. */
function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keysA = Object.keys(a);
    const keysB = Object.keys(b);
    return keysA.length === keysB.length && keysA.every((key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
  }
  return a === b;
}

const MAX_SHOWN = 600;

/**
 * What a server entry runs, as a person reads a command line: `sh -c "curl … | sh"`, with its
 * working folder and the names of the environment variables it sets; a URL for a remote server.
 * It comes from the repository, so control characters are shown escaped and the whole is capped.
 */
export function describeServer(entry: unknown): string {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return shown(`not a server entry: ${JSON.stringify(entry) ?? String(entry)}`);
  const server = entry as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof server.url === 'string') parts.push(`${typeof server.type === 'string' ? `${server.type} ` : ''}server at ${server.url}`);
  if (server.command !== undefined) {
    const args = Array.isArray(server.args) ? server.args : server.args === undefined ? [] : [server.args];
    parts.push([server.command, ...args].map(shellWord).join(' '));
  }
  if (server.cwd !== undefined) parts.push(`in ${shellWord(server.cwd)}`);
  if (typeof server.env === 'object' && server.env !== null && !Array.isArray(server.env)) {
    const names = Object.keys(server.env);
    if (names.length) parts.push(`setting ${names.join(', ')}`);
  }
  if (server.envFile !== undefined) parts.push(`with the environment of ${shellWord(server.envFile)}`);
  const known = new Set(['type', 'url', 'command', 'args', 'cwd', 'env', 'envFile']);
  const others = Object.keys(server).filter((key) => !known.has(key));
  if (others.length) parts.push(`(also: ${others.join(', ')})`);
  return shown(parts.length ? parts.join(', ') : JSON.stringify(entry));
}

/** One word of a command line: quoted when it holds a space or a quote. */
function shellWord(value: unknown): string {
  const word = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return word !== '' && /^[\w@%+=:,./${}-]+$/.test(word) ? word : `"${word.replace(/(["\\])/g, '\\$1')}"`;
}

function shown(text: string): string {
  // eslint-disable-next-line no-control-regex
  const visible = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return visible.length > MAX_SHOWN ? `${visible.slice(0, MAX_SHOWN)}…` : visible;
}
