// The YAML and TOML readers: a module of their own, built as dist/dataFileKeys.js and required on
// the first key of such a file, so their parsers stay out of the extension's activation bundle.
import { parse as parseToml, TomlError } from 'smol-toml';
import { isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import { escapeRegExp } from '../../shared/regExpText';
import { fingerprintOf, lineAt, missing, unreadable, type KeyLookup } from './keyValues';

export function lookUpYaml(relPath: string, text: string, keys: readonly string[]): KeyLookup {
  // One document: a CI workflow, a compose file, a Helm values file.
  const document = parseDocument(text, { prettyErrors: false });
  if (document.errors.length) return unreadable(relPath, 'YAML', `${document.errors[0].message.split('\n')[0]} at line ${lineAt(text, document.errors[0].pos[0]) + 1}`);
  let node: unknown = document.contents;
  let start = (node as YamlNode | null)?.range?.[0] ?? 0;
  for (const [index, key] of keys.entries()) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((item) => (isScalar(item.key) ? String(item.key.value) : String(item.key)) === key);
      if (pair) {
        next = pair.value;
        start = (isScalar(pair.key) ? pair.key.range?.[0] : undefined) ?? start;
      }
    } else if (isSeq(node) && /^\d+$/.test(key)) {
      next = node.items[Number(key)];
      start = (next as YamlNode | null)?.range?.[0] ?? start;
    }
    if (next === undefined) return missing(relPath, keys, index);
    node = next;
  }
  const value = node as YamlNode | null;
  const end = value?.range?.[1] ?? start;
  // toJS with the document resolves aliases and merges: the value as a program reading the file sees it.
  return { fingerprint: fingerprintOf(value === null ? null : value.toJS(document)), startLine: lineAt(text, start), endLine: lineAt(text, Math.max(start, end - 1)) };
}

export function lookUpToml(relPath: string, text: string, keys: readonly string[]): KeyLookup {
  let data: unknown;
  try {
    data = parseToml(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    return unreadable(relPath, 'TOML', `${error.message.split('\n')[0]}`);
  }
  let value: unknown = data;
  for (const [index, key] of keys.entries()) {
    const next = childValue(value, key);
    if (next === undefined) return missing(relPath, keys, index);
    value = next;
  }
  const line = tomlLine(text, keys);
  return { fingerprint: fingerprintOf(value), startLine: line, endLine: line };
}

/** The line that declares the last key of `keys` (its table's header, or its `key =` line); 0 when no line says it plainly (a dotted or inline key). */
function tomlLine(text: string, keys: readonly string[]): number {
  const last = escapeRegExp(keys[keys.length - 1]);
  const lines = text.split('\n');
  const header = new RegExp(`^\\s*\\[\\[?\\s*${keys.map((key) => `["']?${escapeRegExp(key)}["']?`).join('\\s*\\.\\s*')}\\s*\\]\\]?`);
  const assignment = new RegExp(`^\\s*["']?${last}["']?\\s*=`);
  const found = lines.findIndex((line) => header.test(line));
  return found >= 0 ? found : Math.max(0, lines.findIndex((line) => assignment.test(line)));
}

function childValue(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined;
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, key)) return (value as Record<string, unknown>)[key];
  return undefined;
}

