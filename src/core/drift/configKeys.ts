import { getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import * as path from 'node:path';
import type * as DataFileKeys from './dataFileKeys';
import { fingerprintOf, lineAt, missing, unreadable, type KeyLookup } from './keyValues';

export type { FoundKey, KeyLookup } from './keyValues';

/**
 * Looks up a dotted key path (`scripts.test`, `jobs.unit-test.steps.0`, `project.dependencies`) in
 * a JSON, YAML or TOML file. JSON may have comments and trailing commas (tsconfig.json). The
 * fingerprint is of the value, with object keys sorted: reformatting or reordering is no change.
 */
export function lookUpKey(relPath: string, text: string, keyPath: string): KeyLookup {
  const keys = keyPath.split('.');
  if (/\.jsonc?$/i.test(relPath)) return lookUpJson(relPath, text, keys);
  if (/\.ya?ml$/i.test(relPath)) return dataFileKeys().lookUpYaml(relPath, text, keys);
  if (/\.toml$/i.test(relPath)) return dataFileKeys().lookUpToml(relPath, text, keys);
  return { unsupported: `Keys of ${path.posix.extname(relPath) || 'such'} files are not checked, so ${keyPath} is not verified; only that ${relPath} exists is. Cite the file itself, or a line range (${relPath}#L10-L20), to have its text checked.` };
}

function lookUpJson(relPath: string, text: string, keys: readonly string[]): KeyLookup {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (!root || errors.length) {
    const first = errors[0];
    return unreadable(relPath, 'JSON', first ? `${printParseErrorCode(first.error)} at line ${lineAt(text, first.offset) + 1}` : undefined);
  }
  let node: Node = root;
  let entry: Node = root;
  for (const [index, key] of keys.entries()) {
    const child = jsonChild(node, key);
    if (!child) return missing(relPath, keys, index);
    ({ entry, value: node } = child);
  }
  return { fingerprint: fingerprintOf(getNodeValue(node)), startLine: lineAt(text, entry.offset), endLine: lineAt(text, node.offset + node.length) };
}

/** A member of an object by name, or an element of an array by index: the entry (property) and its value. */
function jsonChild(node: Node, key: string): { entry: Node; value: Node } | undefined {
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

/** The YAML and TOML readers, loaded on first use (a bundle of their own beside this one; see esbuild.mjs). */
function dataFileKeys(): typeof DataFileKeys {
  return require('./dataFileKeys') as typeof DataFileKeys;
}
