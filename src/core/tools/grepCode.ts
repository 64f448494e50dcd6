import * as z from 'zod/mini';
import { sensitivePathReason } from '../files/sensitivePaths';
import { CodeSearchError, MAX_GLOB_CHARS, type CodeMatch } from './codeSearch';
import type { ToolDependencies } from './dependencies';
import type { ToolName, ToolResult, WikiTool } from './tool';
import { defineTool, failure, field, plural, success } from './toolKit';

export const MAX_MATCHES = 200;
const MAX_LINE_CHARS = 300;

const input = z.strictObject({
  pattern: z.string().check(z.minLength(1), z.maxLength(500), z.describe('A regular expression (Rust regex syntax, as ripgrep takes it), e.g. "retry(Count|Delay)".')),
  glob: z.optional(
    z.string().check(
      z.minLength(1),
      z.maxLength(MAX_GLOB_CHARS, { error: `expected a glob of at most ${MAX_GLOB_CHARS} characters, such as "src/**/*.ts"` }),
      z.regex(/^(?![!/\\])(?!.*(^|\/)\.\.(\/|$))[^\0\n]+$/, { error: 'expected a glob relative to the workspace folder, such as "src/**/*.ts" (no leading "!" or "/", no "..")' }),
      z.describe('Only files whose workspace-relative path matches this glob, e.g. "src/**/*.ts" or "*.md".'),
    ),
  ),
});

export function grepCodeTool(deps: Pick<ToolDependencies, 'search' | 'deadlineMs'>): WikiTool {
  return defineTool({
    name: 'grep_code',
    description:
      'Searches the text of the workspace files (those .gitignore does not exclude) for a regular expression, and lists matching lines as "path:line: text". ' +
      'Use it to find where something is used, configured or mentioned, e.g. a string, an option name, an error message; ' +
      `for where a name is declared, find_symbol is more precise. Lists at most ${MAX_MATCHES} lines.`,
    input,
    narrow: 'Search again with a more specific pattern, or a glob naming fewer files (e.g. "src/**/*.ts").',
    deadlineMs: deps.deadlineMs,
    label: (raw) => `Searched the code for /${field(raw, 'pattern')}/${field(raw, 'glob') ? ` in ${field(raw, 'glob')}` : ''}`,
    run: ({ pattern, glob }, signal) =>
      withSearch('grep_code', async () => {
        const result = await deps.search.grep(pattern, { ...(glob ? { glob } : {}), maxMatches: MAX_MATCHES, signal });
        // The search skips .git; secret-looking files are dropped here too, as reads refuse them.
        const matches = result.matches.filter((match) => !sensitivePathReason(match.path));
        const notes = [
          ...(result.truncated ? [`[cut: more lines match; the first ${MAX_MATCHES} are shown. Narrow the pattern or the glob.]`] : []),
          ...(result.timedOut ? ['[cut: the search ran out of time; these are the lines found until then]'] : []),
        ];
        if (!matches.length) return success([`No line matches /${pattern}/${glob ? ` in ${glob}` : ''}.`, ...notes].join('\n'), '0 matches');
        const files = new Set(matches.map((match) => match.path)).size;
        return success([...matches.map(describeMatch), ...notes].join('\n'), `${matches.length === 1 ? '1 match' : `${matches.length} matches`} in ${plural(files, 'file')}`);
      }),
  });
}

function describeMatch(match: CodeMatch): string {
  const text = match.text.length > MAX_LINE_CHARS ? `${match.text.slice(0, MAX_LINE_CHARS)} … [line cut]` : match.text;
  return `${match.path}:${match.line}: ${text}`;
}

/** Runs a search-backed handler; a search that cannot run (no ripgrep, a bad pattern) is an error result saying what to do. */
export async function withSearch(tool: ToolName, work: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof CodeSearchError)) throw error;
    if (error.reason === 'unavailable') return failure(`${tool} needs ripgrep: ${error.message}`, 'ripgrep not found');
    return failure(`${tool}: ${error.message}`, 'invalid input');
  }
}
