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

export function missing(relPath: string, keys: readonly string[], index: number): { missing: string } {
  const parent = index ? `${keys.slice(0, index).join('.')} has no key ${keys[index]}` : `it has no top-level key ${keys[index]}`;
  return { missing: `${keys.join('.')} is not a key of ${path.posix.basename(relPath)}: ${parent}.` };
}

export function unreadable(relPath: string, kind: string, why: string | undefined): { unreadable: string } {
  return { unreadable: `${relPath} is not valid ${kind}${why ? ` (${why})` : ''}, so its keys cannot be checked. Fix the file, then check again.` };
}

export function fingerprintOf(value: unknown): string {
  return hex8(fnv(canonical(value)));
}

/** A value as JSON with object keys sorted (dates as ISO text). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function lineAt(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
