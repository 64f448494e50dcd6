/** The syntax of a code citation, shared by the drift checker (host) and the chat view (webview). */

export interface CitationSyntax {
  /** The citation as written (without backticks or a trailing `()`); the key of its anchor. */
  text: string;
  /** Path relative to the workspace folder, with forward slashes. */
  path: string;
  /** Qualified symbol, absent for a whole-file citation. */
  symbol?: string;
  /** The path is absolute or climbs out of the workspace; it is never read. */
  outside: boolean;
}

export const TS_LIKE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i;

/** Files whose symbols drift checks: TS/JS, and with tree-sitter Python, Go, Rust, Java, C#, Ruby, PHP, C and C++. */
export const SYMBOL_FILE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|py|go|rs|java|cs|rb|php|c|h|cc|cpp|cxx|hh|hpp|hxx)$/i;

// A path needs a slash or a familiar extension, so prose like `Foo.bar` or `e.g.` is not a citation.
const KNOWN_EXTENSION = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|d\.ts|json|jsonc|md|mdx|ya?ml|toml|css|scss|less|html?|svg|sql|sh|bash|py|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|cxx|hh|hpp|hxx|swift|txt|env|ini|xml|graphql|proto|lock)$/i;
const CITATION = /^(?<path>(?:[A-Za-z]:)?[^\s:`*?"<>|]+?)(?::(?<symbol>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$#][\w$]*)*)(?:\(\))?)?$/;

/** Parses one inline-code text as a citation, or returns undefined when it is just code. */
export function parseCitationText(raw: string): CitationSyntax | undefined {
  const text = raw.trim().replace(/\(\)$/, '');
  const match = CITATION.exec(text);
  if (!match?.groups) return undefined;
  const path = match.groups.path.replace(/\\/g, '/');
  const symbol = match.groups.symbol;
  if (!path.includes('/') && !KNOWN_EXTENSION.test(path)) return undefined;
  if (!/[A-Za-z0-9]/.test(path) || path.endsWith('/')) return undefined;
  if (symbol && !SYMBOL_FILE.test(path)) return undefined; // symbols are only checked in languages drift parses
  const normal = normalisePath(path);
  const outside = escapesWorkspace(path);
  return symbol ? { text, path: normal, symbol, outside } : { text, path: normal, outside };
}

function escapesWorkspace(path: string): boolean {
  return path.startsWith('/') || path.startsWith('~') || /^[A-Za-z]:/.test(path) || path.split('/').includes('..');
}

function normalisePath(path: string): string {
  return path.replace(/^\.\//, '').replace(/\/{2,}/g, '/');
}
