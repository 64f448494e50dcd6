import type { DeclaredName, SymbolKind } from '../drift/symbols';
import { ownNames } from './fileLocal';
import type { References } from './identifiers';

/** A signature is the first line of its declaration, cut here: a map shows shapes, not code. */
export const MAX_SIGNATURE_CHARS = 160;

/** A declaration as the map shows it. */
export interface MapDefinition {
  /** The declared name as cited, e.g. `Router` (the map keeps top-level declarations). */
  name: string;
  kind: SymbolKind;
  /** 0-based. */
  line: number;
  /** The declaration's first line, trimmed and cut at MAX_SIGNATURE_CHARS. */
  signature: string;
}

/** What the map knows of one source file: what it declares and which names it uses. */
export interface FileFacts {
  path: string;
  /** A digest of the file's bytes: the same digest, the same facts (no parse). */
  digest: string;
  definitions: readonly MapDefinition[];
  /** How often it uses each identifier. */
  references: References;
  /** Names it declares without exporting them, in an ES module (ownNames); absent when none or unknown. */
  own?: ReadonlySet<string>;
}

export type SkipReason = 'too-large' | 'binary' | 'refused' | 'too-deep' | 'unreadable';

/** A source file the map left out, and why (as drift and find_symbol skip it). */
export interface SkippedFile {
  path: string;
  reason: SkipReason;
}

export function isSkipped(entry: FileFacts | SkippedFile): entry is SkippedFile {
  return 'reason' in entry;
}

/**
 * The facts of a file from its text and its declarations as drift parses them. Only top-level
 * declarations are kept: other files reach a member through its container's name.
 */
export function factsOf(path: string, digest: string, text: string, symbols: Iterable<DeclaredName>, references: References): FileFacts {
  const definitions: MapDefinition[] = [];
  let lineStarts: number[] | undefined;
  for (const symbol of symbols) {
    if (symbol.name.includes('.')) continue;
    lineStarts ??= startsOfLines(text);
    definitions.push({ name: symbol.name, kind: symbol.kind, line: symbol.startLine, signature: signatureAt(text, lineStarts, symbol.startLine) });
  }
  const own = ownNames(path, text, definitions);
  return sortedFacts(path, digest, definitions, references, own);
}

/**
 * The facts of a file from a parse thread's outline, whose declarations bring their first lines:
 * no text needed here. (An ES module, whose unexported names are its own, is parsed with its text.)
 */
export function factsOfOutline(path: string, digest: string, outline: Iterable<DeclaredName>, references: References): FileFacts {
  const definitions: MapDefinition[] = [];
  for (const { name, kind, startLine, signature } of outline) {
    if (signature === undefined) throw new Error(`The outline of ${path} has no first line for ${name}: parse it with its text.`);
    if (!name.includes('.')) definitions.push({ name, kind, line: startLine, signature });
  }
  return sortedFacts(path, digest, definitions, references, undefined);
}

/** The line holding `offset`, as the map shows a declaration's first line (a parse thread's outline takes it so). */
export function signatureAtOffset(text: string, offset: number): string {
  const end = text.indexOf('\n', offset);
  return signatureOf(text.slice(text.lastIndexOf('\n', offset - 1) + 1, end < 0 ? text.length : end));
}

/** A declaration's first line as the map shows it: trimmed, and cut at MAX_SIGNATURE_CHARS. */
function signatureOf(line: string): string {
  const raw = line.trim();
  return raw.length > MAX_SIGNATURE_CHARS ? `${raw.slice(0, MAX_SIGNATURE_CHARS - 1)}…` : raw;
}

function sortedFacts(path: string, digest: string, definitions: MapDefinition[], references: References, own: ReadonlySet<string> | undefined): FileFacts {
  definitions.sort((a, b) => a.line - b.line || (a.name < b.name ? -1 : 1));
  return { path, digest, definitions, references, ...(own ? { own } : {}) };
}

function startsOfLines(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

function signatureAt(text: string, starts: readonly number[], line: number): string {
  const start = starts[line] ?? text.length;
  const next = starts[line + 1];
  return signatureOf(text.slice(start, next === undefined ? text.length : next - 1));
}
