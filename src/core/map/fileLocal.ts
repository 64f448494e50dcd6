/** Files that are ES modules when a line imports or exports: their declarations are their own unless exported. */
const ES_MODULE_FILE = /\.(ts|tsx|mts|js|jsx|mjs)$/;
const MODULE_LINE = /^(import|export)\b/m;
/** An export the map cannot place on a declaration: a list, a re-export, `export =` or a default expression. */
const UNPLACED_EXPORT = /^export\s*(\{|\*|=|type\s*\{|default\s+(?!(async\s+)?(function|class|abstract)\b))/m;
const EXPORTED = /^export\b/;
/** A decorated declaration's first line is its decorator: whether it is exported is on a later line. */
const DECORATED = /^@/;

/**
 * The names an ES module declares for itself (top-level, not exported); undefined when there are
 * none, or when it exports in a way the map cannot place on a declaration (`export { a }`). Other
 * files cannot use these names, so their words that spell one (`text`, `page`) do not refer to it.
 */
export function ownNames(path: string, text: string, definitions: readonly { name: string; signature: string }[]): ReadonlySet<string> | undefined {
  if (!ES_MODULE_FILE.test(path) || !MODULE_LINE.test(text) || UNPLACED_EXPORT.test(text)) return undefined;
  const own = definitions.filter(({ signature }) => !EXPORTED.test(signature) && !DECORATED.test(signature)).map(({ name }) => name);
  return own.length ? new Set(own) : undefined;
}
