/** The syntax of a code citation, shared by the drift checker (host) and the chat view (webview). */

export interface CitationSyntax {
  /** The citation as written (without backticks or a trailing `()`); the key of its anchor. */
  text: string;
  /** Path relative to the workspace folder, with forward slashes. */
  path: string;
  /** Qualified symbol (in a JSON, YAML or TOML file, a key path such as `scripts.test`); absent for a whole-file citation. */
  symbol?: string;
  /** The path is absolute or climbs out of the workspace; it is never read. */
  outside: boolean;
  /** A line range, `path#L10-L20` (1-based, inclusive) or `path#L10`: the text of those lines is cited. */
  lines?: LineRange;
  /** A folder, `src/adapters/` (with the trailing slash): its existence is cited. `path` has no trailing slash. */
  folder?: true;
}

export interface LineRange {
  start: number;
  end: number;
}

export const TS_LIKE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i;

/** Files whose symbols drift checks: TS/JS, and with tree-sitter Python, Go, Rust, Java, C#, Ruby, PHP, C and C++. */
export const SYMBOL_FILE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|py|go|rs|java|cs|rb|php|c|h|cc|cpp|cxx|hh|hpp|hxx)$/i;

/** Files whose keys a citation can name (`package.json:scripts.test`), with a dot between keys. */
export const KEYED_FILE = /\.(json|jsonc|ya?ml|toml)$/i;

// A path needs a slash or a familiar extension, so prose like `Foo.bar` or `e.g.` is not a citation.
const KNOWN_EXTENSION = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|d\.ts|json|jsonc|md|mdx|ya?ml|toml|css|scss|less|html?|svg|sql|sh|bash|py|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|cxx|hh|hpp|hxx|swift|txt|env|ini|xml|graphql|proto|lock)$/i;
const CITATION = /^(?<path>(?:[A-Za-z]:)?[^\s:`*?"<>|]+?)(?::(?<symbol>[^\s:`]+?)(?:\(\))?|#L(?<start>\d+)(?:-L?\d+)?)?$/;
const SYMBOL = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$#][\w$]*)*$/;
// Keys as package.json, CI workflows and pyproject.toml spell them: `dependencies.@types/node`, `jobs.unit-test`, `steps.0`;
// not a number first, so `package.json:12` (a line, in prose) is no key.
const KEY_PATH = /^[A-Za-z_$@][\w$@/-]*(?:\.[\w$@-][\w$@/-]*)*$/;
const LINE_RANGE = /^(?<path>[^#]+)#L(?<start>\d+)(?:-L?(?<end>\d+))?$/;

/**
 * A `path#L10-L20` (or `#L10`, `#L10-20`) split into its path and lines, whatever the path; the
 * lines as written, so a caller can say what is wrong with `#L0` or `#L20-L10` (see lineRangeProblem).
 */
export function splitLineRange(text: string): { path: string; lines: LineRange } | undefined {
  const groups = LINE_RANGE.exec(text)?.groups;
  if (!groups) return undefined;
  const start = Number(groups.start);
  return { path: groups.path, lines: { start, end: groups.end === undefined ? start : Number(groups.end) } };
}

/** Why a line range cannot be read, or undefined when it can be. */
export function lineRangeProblem(text: string, lines: LineRange): string | undefined {
  if (lines.start >= 1 && lines.end >= lines.start) return undefined;
  return `${text}: a line range runs from line 1 or later to a line at or after its start, e.g. #L10-L40.`;
}

/** A line range as written in a citation: `#L10-L20`, or `#L10` for one line. */
export function lineRangeText(lines: LineRange): string {
  return lines.end === lines.start ? `#L${lines.start}` : `#L${lines.start}-L${lines.end}`;
}

/** Parses one inline-code text as a citation, or returns undefined when it is just code. */
export function parseCitationText(raw: string): CitationSyntax | undefined {
  const text = raw.trim().replace(/\(\)$/, '');
  const match = CITATION.exec(text);
  if (!match?.groups) return undefined;
  const path = match.groups.path.replace(/\\/g, '/');
  const { symbol, start } = match.groups;
  if (!path.includes('/') && !KNOWN_EXTENSION.test(path)) return undefined;
  if (!/[A-Za-z0-9]/.test(path)) return undefined;
  const outside = escapesWorkspace(path);
  if (path.endsWith('/')) {
    // `src/adapters/`: a folder. A slash alone, `//` or a folder with a range or key is prose.
    if (symbol || start || path.endsWith('//')) return undefined;
    return { text, path: normalisePath(path).replace(/\/$/, ''), outside, folder: true };
  }
  const normal = normalisePath(path);
  if (start) return { text, path: normal, outside, lines: splitLineRange(text)!.lines };
  if (!symbol) return { text, path: normal, outside };
  // Symbols are only checked in languages drift parses, keys in the data files it reads.
  const named = SYMBOL_FILE.test(path) ? SYMBOL.test(symbol) : KEYED_FILE.test(path) && KEY_PATH.test(symbol);
  return named ? { text, path: normal, symbol, outside } : undefined;
}

function escapesWorkspace(path: string): boolean {
  return path.startsWith('/') || path.startsWith('~') || /^[A-Za-z]:/.test(path) || path.split('/').includes('..');
}

function normalisePath(path: string): string {
  return path.replace(/^\.\//, '').replace(/\/{2,}/g, '/');
}
