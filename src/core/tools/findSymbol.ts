import * as z from 'zod/mini';
import type { SourceSymbol } from '../drift/symbols';
import { nextTurn, turnDue } from '../eventLoopTurns';
import { withSearch } from './grepCode';
import type { ToolDependencies } from './dependencies';
import type { WikiTool } from './tool';
import { defineTool, field, plural, success } from './toolKit';
import { declarationsOf, isResult, readWorkspaceText } from './workspaceText';

/** The languages drift parses (see SYMBOL_FILE). */
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.py', '.go', '.rs', '.java', '.cs', '.rb', '.php', '.c', '.h', '.cc', '.cpp', '.cxx', '.hh', '.hpp', '.hxx'];
/** Files parsed at most: a common word ("run", "get") is in thousands of files. */
const MAX_CANDIDATE_FILES = 200;
const MAX_DECLARATIONS = 100;

const input = z.strictObject({
  name: z.string().check(
    z.minLength(1),
    z.maxLength(200),
    z.regex(/^[A-Za-z_$][\w$]*(\.[A-Za-z_$#][\w$]*)*$/, { error: 'expected an identifier such as "Foo", "Foo.bar" or "bar"' }),
    z.describe('A declared name: "Router", a member "Router.match", or a bare member name "match".'),
  ),
});

export function findSymbolTool(deps: Pick<ToolDependencies, 'wiki' | 'files' | 'symbolsOf' | 'search' | 'deadlineMs'>): WikiTool {
  return defineTool({
    name: 'find_symbol',
    description:
      'Finds where a function, class, method, interface, type, enum or variable is declared in the source files of the workspace ' +
      '(TS/JS, Python, Go, Rust, Java, C#, Ruby, PHP, C, C++), ' +
      'as citations "path:Qualified.name" with kind and line. Use it when you know a name but not its file, ' +
      'then read the declaration with read_code.',
    input,
    narrow: 'Give a more specific name, such as "Class.member" rather than "member", or search with grep_code and a glob.',
    deadlineMs: deps.deadlineMs,
    label: (raw) => `Looked for the declaration of ${field(raw, 'name')}`,
    async run({ name }, signal) {
      const word = name.split('.').pop()!;
      return withSearch('find_symbol', async () => {
        const { files, truncated } = await deps.search.filesContaining(word, { extensions: SOURCE_EXTENSIONS, maxFiles: MAX_CANDIDATE_FILES, signal });
        const found: { path: string; symbol: SourceSymbol }[] = [];
        const tooDeep: string[] = [];
        for (const file of files.sort()) {
          while (turnDue()) await nextTurn(); // reads and parses here may all be synchronous (CLI, MCP)
          signal.throwIfAborted();
          const text = await readWorkspaceText(deps, file);
          // A file Repo Wiki does not read (a link out, a secret) or cannot parse whole declares nothing here.
          if (isResult(text) || text.cut) continue;
          const symbols = await declarationsOf(deps, file, text.text);
          if (symbols === 'too-deep') {
            tooDeep.push(file); // one file nested deeper than the parser's stack costs that file, not the search
            continue;
          }
          for (const symbol of symbols) if (matches(symbol.name, name)) found.push({ path: file, symbol });
        }
        const notes = truncated ? [`[cut: "${word}" is in more than ${MAX_CANDIDATE_FILES} files; only those were parsed. Use a qualified name such as Class.${word}.]`] : [];
        if (tooDeep.length) notes.push(`[skipped, nested too deeply to parse: ${tooDeep.join(', ')}]`);
        if (!found.length) return success([`No declaration of ${name} in the workspace's source files.`, ...notes].join('\n'), '0 declarations');
        const rows = found.slice(0, MAX_DECLARATIONS).map(({ path, symbol }) => `${path}:${symbol.name}  ${symbol.kind}  line ${symbol.startLine + 1}`);
        if (found.length > MAX_DECLARATIONS) notes.push(`[cut: ${found.length} declarations; the first ${MAX_DECLARATIONS} are shown]`);
        return success([...rows, ...notes].join('\n'), plural(found.length, 'declaration'));
      });
    },
  });
}

/** `name` is the qualified name itself or its tail: "match" and "Router.match" both find `Router.match`. */
function matches(qualified: string, name: string): boolean {
  return qualified === name || qualified.endsWith(`.${name}`);
}
