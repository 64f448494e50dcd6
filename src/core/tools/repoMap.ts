import * as z from 'zod/mini';
import { TOKEN_ESTIMATE } from '../map/renderMap';
import { DEFAULT_MAP_TOKENS } from '../map/repoMap';
import type { ToolDependencies } from './dependencies';
import type { WikiTool } from './tool';
import { defineTool, failure, plural, success } from './toolKit';

/** A tool result is cut at 32 KB (MAX_RESULT_CHARS): a map larger than that would be cut. */
export const MAX_TOOL_MAP_TOKENS = 8000;

const input = z.strictObject({
  focus: z.optional(
    z.array(z.string().check(z.minLength(1), z.maxLength(300))).check(
      z.maxLength(20),
      z.describe('Files, folders (workspace-relative) or names the question is about, e.g. ["src/router.ts", "Router"]: they and what they use rank higher.'),
    ),
  ),
  tokens: z.optional(z.int().check(z.minimum(64), z.maximum(MAX_TOOL_MAP_TOKENS), z.describe(`The most tokens the map may take; ${DEFAULT_MAP_TOKENS} unless given.`))),
});

export function repoMapTool(deps: Pick<ToolDependencies, 'map' | 'deadlineMs'>): WikiTool {
  return defineTool({
    name: 'repo_map',
    description:
      'A map of the repository: its most important source files (TS/JS, Python, Go, Rust, Java, C#, Ruby, PHP, C, C++), ' +
      'ranked by how much the rest of the code uses them (PageRank over references, as Aider ranks them), each with the ' +
      'first lines of its most-used declarations and their line numbers, then further declarations by name ("also: a, b"), within a token budget. A question about a codebase ' +
      'you do not know yet starts here, not with grep_code: read the map, then read_code the files and declarations it shows. ' +
      'Give focus (files, folders or names from the question) to rank the code around them first.',
    input,
    narrow: 'Ask for fewer tokens, or focus on a folder.',
    deadlineMs: deps.deadlineMs,
    label: (raw) => (Array.isArray(raw.focus) && raw.focus.length ? `Mapped the repository around ${raw.focus.slice(0, 3).map(String).join(', ').slice(0, 60)}` : 'Mapped the repository'),
    async run({ focus, tokens }, signal) {
      if (!deps.map) return failure('The repository map is not available here.', 'unavailable');
      const map = await deps.map.map({ focus, tokens, signal });
      const notes: string[] = [];
      if (map.omitted) notes.push(`[${plural(map.omitted, 'more file')} ranked lower did not fit in ${map.tokens.budget} tokens]`);
      if (map.skipped.length) notes.push(`[skipped, not read or not parsed: ${map.skipped.slice(0, 20).map((file) => `${file.path} (${file.reason})`).join(', ')}${map.skipped.length > 20 ? ', …' : ''}]`);
      if (!map.files.length) return success(['No source file in the languages Repo Wiki parses fits the map.', ...notes].join('\n'), '0 files');
      return success([map.text, ...notes].join('\n'), `${plural(map.files.length, 'file')}, ${map.tokens.used} tokens (${TOKEN_ESTIMATE})`);
    },
  });
}
