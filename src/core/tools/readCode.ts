import * as z from 'zod/mini';
import { KEYED_FILE, lineRangeProblem, parseCitationText, splitLineRange } from '../drift/citations';
import { lookUpKey } from '../drift/configKeys';
import type { ToolDependencies } from './dependencies';
import type { ToolResult, WikiTool } from './tool';
import { defineTool, failure, field, MAX_RESULT_CHARS, success } from './toolKit';
import { declarationsOf, isResult, readWorkspaceText } from './workspaceText';

export const MAX_CODE_LINES = 400;
/** Room left in a result for the header and the note of a cut. */
const MAX_CODE_CHARS = MAX_RESULT_CHARS - 1024;
/** A longer line (minified code) is cut: one line must not fill the result. */
const MAX_LINE_CHARS = 1000;

const input = z.strictObject({
  citation: z.string().check(
    z.minLength(1),
    z.maxLength(1000),
    z.describe('What to read, relative to the workspace folder: "src/a.ts", "src/a.ts:Foo", "src/a.ts:Foo.bar" or "src/a.ts#L10-L40".'),
  ),
});

/** What a citation asks for: a whole file, a declaration, or 1-based lines. */
type CodeRequest = { path: string; symbol?: string; lines?: { start: number; end: number } };

export function readCodeTool(deps: Pick<ToolDependencies, 'wiki' | 'files' | 'symbolsOf' | 'drift' | 'deadlineMs'>): WikiTool {
  return defineTool({
    name: 'read_code',
    description:
      'Reads the current code of the workspace, with line numbers: a whole file ("src/a.ts"), a declaration in a source file of a language drift parses ' +
      '("src/a.ts:Foo", "src/a.ts:Foo.bar"), or a line range ("src/a.ts#L10-L40"). Use it to check what a wiki page says against the code, ' +
      `and before citing code in an answer. Shows at most ${MAX_CODE_LINES} lines; ask for a line range to read further.`,
    input,
    narrow: 'Read a declaration ("path:Symbol") or a line range ("path#L1-L200") rather than a whole file.',
    deadlineMs: deps.deadlineMs,
    label: (raw) => `Read ${field(raw, 'citation')}`,
    async run({ citation }) {
      const request = parseRequest(citation.trim());
      if (typeof request === 'string') return failure(request, 'invalid citation');
      const file = await readWorkspaceText(deps, request.path);
      if (isResult(file)) return file;
      const lines = file.text.split('\n').map((line) => line.replace(/\r$/, ''));
      if (lines.at(-1) === '') lines.pop();
      if (request.symbol && KEYED_FILE.test(request.path)) {
        const key = lookUpKey(request.path, file.text, request.symbol);
        if ('fingerprint' in key) return showLines(request, lines, key.startLine + 1, key.endLine + 1, `${request.path}:${request.symbol}`);
        const why = 'missing' in key ? key.missing : 'unreadable' in key ? key.unreadable : `${request.path}'s keys cannot be looked up; read the file instead.`;
        return failure(why, 'key not found');
      }
      if (request.symbol) {
        if (file.cut) return failure(`${request.path} is too large to find declarations in; read a line range instead, e.g. ${request.path}#L1-L200.`, 'refused: too large');
        const symbols = await declarationsOf(deps, request.path, file.text);
        if (symbols === 'too-deep') return failure(`${request.path} is nested too deeply to parse, so its declarations cannot be found; read a line range instead, e.g. ${request.path}#L1-L200.`, 'refused: nested too deeply to parse');
        const symbol = symbols.find((s) => s.name === request.symbol);
        if (!symbol) return (await reExported(deps, request.path, request.symbol)) ?? failure(`${request.symbol} is not declared in ${request.path}. Use find_symbol to find where it is declared.`, 'symbol not found');
        return showLines(request, lines, symbol.startLine + 1, symbol.endLine + 1, `${request.path}:${request.symbol}`);
      }
      if (!lines.length) return success(`${request.path} is empty.`, 'empty file', [request.path]);
      if (!request.lines) return showLines(request, lines, 1, lines.length, request.path, file.cut);
      const { start, end } = request.lines;
      if (start > lines.length) {
        return failure(`${request.path} has ${file.cut ? 'more than ' : ''}${lines.length} lines${file.cut ? ' readable' : ''}; line ${start} is past them.`, 'past the end');
      }
      return showLines(request, lines, start, Math.min(end, lines.length), `${request.path}#L${start}-L${end}`);
    },
  });
}

/**
 * A symbol a file re-exports (a barrel, a package's `__init__.py`), resolved as drift resolves its
 * citation: the declaration's lines, headed by where it is declared. Undefined when drift does not resolve it elsewhere either.
 */
async function reExported(deps: Pick<ToolDependencies, 'wiki' | 'files' | 'symbolsOf' | 'drift'>, cited: string, name: string): Promise<ToolResult | undefined> {
  const found = await deps.drift.locate({ path: cited, symbol: name });
  if (!found?.symbol || (found.path === cited && found.symbol === name)) return undefined;
  const file = await readWorkspaceText(deps, found.path);
  if (isResult(file)) return file;
  const symbols = file.cut ? [] : await declarationsOf(deps, found.path, file.text);
  const symbol = symbols !== 'too-deep' && symbols.find((s) => s.name === found.symbol);
  if (!symbol) return undefined;
  const lines = file.text.split('\n').map((line) => line.replace(/\r$/, ''));
  const declared = `${found.path}:${found.symbol}`;
  return showLines({ path: found.path }, lines, symbol.startLine + 1, symbol.endLine + 1, declared, false, `${cited}:${name} is re-exported from ${declared}, where it is declared:`);
}

function parseRequest(citation: string): CodeRequest | string {
  // The grammar of pages' line-range citations, on any path (`Makefile#L1-L20` too).
  const range = splitLineRange(citation);
  if (range) return lineRangeProblem(citation, range.lines) ?? range;
  const parsed = parseCitationText(citation);
  if (parsed) return { path: parsed.path, ...(parsed.symbol ? { symbol: parsed.symbol } : {}) };
  // Files like `Makefile` are no citation in a page, but are fine to read.
  if (!/[:#\s`]/.test(citation)) return { path: citation };
  return `"${citation}" is not a code citation: use "path", "path:Symbol" or "path:Class.member", or "path#L10-L40".`;
}

/**
 * Lines `first`–`last` (1-based) with their numbers, cut at MAX_CODE_LINES or MAX_CODE_CHARS
 * with a note (after `lead`, when given); `read` names only what was shown, so an answer can cite it as verified.
 */
function showLines(request: CodeRequest, lines: readonly string[], first: number, last: number, asked: string, fileCut = false, lead?: string): ToolResult {
  const width = String(last).length;
  const shown: string[] = [];
  let chars = 0;
  let line = first;
  for (; line <= last && shown.length < MAX_CODE_LINES; line++) {
    const code = lines[line - 1];
    const row = `${String(line).padStart(width)} | ${code.length > MAX_LINE_CHARS ? `${code.slice(0, MAX_LINE_CHARS)} … [line cut]` : code}`;
    if (chars + row.length + 1 > MAX_CODE_CHARS) break;
    shown.push(row);
    chars += row.length + 1;
  }
  const lastShown = line - 1;
  const complete = lastShown === last && !fileCut;
  const range = `lines ${first}–${lastShown}`;
  const notes: string[] = [];
  if (lastShown < last) notes.push(`[cut: ${range} of ${first}–${last} are shown; read ${request.path}#L${lastShown + 1}-L${last} for more]`);
  if (fileCut) notes.push(`[cut: ${request.path} is larger than Repo Wiki reads at once; read a line range for the rest]`);
  const read = complete ? asked : `${request.path}#L${first}-L${lastShown}`;
  return success([...(lead ? [lead] : []), `${asked} (${range})`, ...shown, ...notes].join('\n'), complete ? range : `${range}, cut`, [read]);
}
