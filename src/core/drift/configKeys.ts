import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import * as path from 'node:path';
import { fnv } from './lineRanges';
import { hex8 } from './symbols';

/** A key found in a data file: the fingerprint of its value and the 0-based lines of the entry. */
export interface FoundKey {
  fingerprint: string;
  startLine: number;
  endLine: number;
}

/** What a key path leads to in a file: the key, why it is not there, or why the file cannot be read for keys. */
export type KeyLookup = FoundKey | { missing: string } | { unreadable: string } | { unsupported: string };

const JSON_FILE = /\.jsonc?$/i;

/**
 * Looks up a dotted key path (`scripts.test`, `compilerOptions.paths`, `steps.0`) in a JSON file;
 * comments and trailing commas are allowed (tsconfig.json). YAML and TOML files are not read for
 * keys yet: no parser for them is a dependency of Repo Wiki.
 */
export function lookUpKey(relPath: string, text: string, keyPath: string): KeyLookup {
  if (!JSON_FILE.test(relPath)) {
    const kind = /\.toml$/i.test(relPath) ? 'TOML' : 'YAML';
    return { unsupported: `Keys of ${kind} files are not checked yet, so ${keyPath} is not verified; only that ${relPath} exists is. Cite the file itself, or a line range (${relPath}#L10-L20), to have its text checked.` };
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (!root || errors.length) {
    const first = errors[0];
    const where = first ? ` (${printParseErrorCode(first.error)} at line ${lineAt(text, first.offset) + 1})` : '';
    return { unreadable: `${relPath} is not valid JSON${where}, so its keys cannot be checked. Fix the file, then check again.` };
  }
  let node: Node = root;
  let entry: Node = root;
  const keys = keyPath.split('.');
  for (const [index, key] of keys.entries()) {
    const child = childAt(node, key);
    if (!child) {
      const parent = index ? `${keys.slice(0, index).join('.')} has no key ${key}` : `it has no top-level key ${key}`;
      return { missing: `${keyPath} is not a key of ${path.posix.basename(relPath)}: ${parent}.` };
    }
    ({ entry, value: node } = child);
  }
  return { fingerprint: hex8(fnv(canonical(node))), startLine: lineAt(text, entry.offset), endLine: lineAt(text, node.offset + node.length) };
}

/** A member of an object by name, or an element of an array by index: the entry (property) and its value. */
function childAt(node: Node, key: string): { entry: Node; value: Node } | undefined {
  if (node.type === 'object') {
    const property = node.children?.find((child) => child.children?.[0]?.value === key);
    const value = property?.children?.[1];
    return property && value ? { entry: property, value } : undefined;
  }
  if (node.type === 'array' && /^\d+$/.test(key)) {
    const value = node.children?.[Number(key)];
    return value ? { entry: value, value } : undefined;
  }
  return undefined;
}

/** A value as JSON with object keys sorted: reformatting or reordering keys is not a change to it. */
function canonical(node: Node): string {
  if (node.type === 'object') {
    const members = (node.children ?? []).map((property) => [String(property.children?.[0]?.value), property.children?.[1]] as const);
    members.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([key, value]) => `${JSON.stringify(key)}:${value ? canonical(value) : 'null'}`).join(',')}}`;
  }
  if (node.type === 'array') return `[${(node.children ?? []).map(canonical).join(',')}]`;
  return JSON.stringify(node.value) ?? 'null';
}

function lineAt(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
