import * as path from 'node:path';
import { FileAccessError, isFileAccessError, isNotAFile } from '../errors';
import type { FileSystem } from '../ports';
import { KEYED_FILE, lineRangeProblem, lineRangeText, type Citation, type LineRange } from './citations';
import { DriftCode, unverifiedMessage } from './driftCodes';
import { lookUpKey } from './configKeys';
import { TextLines } from './lineRanges';
import { parseAnchor } from './symbols';

/** A citation of part of a file (a line range, a key of a data file) or of a folder: what CitedParts checks. */
export type PartCitation = Pick<Citation, 'text' | 'path' | 'symbol' | 'lines' | 'folder'>;

export interface PartVerdict {
  code: DriftCode;
  message: string;
  /** `anchor`: the fingerprint a stamp would record now; `relocatedTo`: the citation where moved lines are now. */
  extra?: { anchor?: string; relocatedTo?: string };
}

type FileText = { exists: false; refused?: FileAccessError } | { exists: true; text: string; lines: TextLines };

/** Whether CitedParts, not the declaration parsers, checks this citation. */
export function isPartCitation(citation: Pick<Citation, 'path' | 'symbol' | 'lines' | 'folder'>): boolean {
  return !!citation.lines || !!citation.folder || (!!citation.symbol && KEYED_FILE.test(citation.path));
}

/**
 * Checks the citations that name no declaration: a line range (its text, found again by content
 * when code above moved it), a key of a JSON file (its value), a folder (its existence). Each file's
 * text is read once until `invalidate` says it changed.
 */
export class CitedParts {
  private readonly texts = new Map<string, Promise<FileText>>();

  constructor(private readonly root: string, private readonly fs: FileSystem) {}

  invalidate(relPath: string): void {
    this.texts.delete(relPath);
  }

  /** Whether a folder is at this workspace path now. */
  async isFolder(relPath: string): Promise<boolean> {
    return (await this.fs.stat(path.join(this.root, relPath)))?.isDirectory === true;
  }

  async check(citation: PartCitation, anchor: string | undefined): Promise<PartVerdict | undefined> {
    if (citation.folder) {
      if (await this.isFolder(citation.path)) return undefined;
      return { code: DriftCode.MissingFile, message: `The folder ${citation.path}/ does not exist.` };
    }
    const problem = citation.lines && lineRangeProblem(citation.text, citation.lines);
    if (problem) return { code: DriftCode.MissingSymbol, message: problem };
    const file = await this.text(citation.path);
    if (!file.exists && file.refused) {
      const outside = file.refused.reason === 'link-outside' || file.refused.reason === 'outside';
      return { code: outside ? DriftCode.OutsideWorkspace : DriftCode.UnreadableFile, message: file.refused.message };
    }
    if (!file.exists) return { code: DriftCode.MissingFile, message: `${citation.path} does not exist.` };
    return citation.lines ? checkLines(citation, citation.lines, file.lines, anchor) : checkKey(citation, file.text, anchor);
  }

  /** The anchor a stamp records: the fingerprint of the lines' text or of the key's value; '' for a folder that exists (nothing to record); undefined when it does not resolve. */
  async currentAnchor(citation: Omit<PartCitation, 'text'>): Promise<string | undefined> {
    if (citation.folder) return (await this.isFolder(citation.path)) ? '' : undefined;
    const file = await this.text(citation.path);
    if (!file.exists) return undefined;
    if (citation.lines) return inFile(citation.lines, file.lines) ? bodyAnchor(file.lines.fingerprint(citation.lines)) : undefined;
    const key = lookUpKey(citation.path, file.text, citation.symbol!);
    return 'fingerprint' in key ? bodyAnchor(key.fingerprint) : undefined;
  }

  /** Where the cited part is, 0-based lines, for "open the citation". */
  async locate(citation: Omit<PartCitation, 'text'>): Promise<{ path: string; line: number; endLine?: number; folder?: true } | undefined> {
    if (citation.folder) return (await this.isFolder(citation.path)) ? { path: citation.path, line: 0, folder: true } : undefined;
    const file = await this.text(citation.path);
    if (!file.exists && file.refused) throw file.refused;
    if (!file.exists) return undefined;
    if (citation.lines) {
      if (!inFile(citation.lines, file.lines)) return undefined;
      return { path: citation.path, line: citation.lines.start - 1, endLine: citation.lines.end - 1 };
    }
    const key = lookUpKey(citation.path, file.text, citation.symbol!);
    if ('fingerprint' in key) return { path: citation.path, line: key.startLine, endLine: key.endLine };
    return 'unsupported' in key ? { path: citation.path, line: 0 } : undefined;
  }

  private text(relPath: string): Promise<FileText> {
    let reading = this.texts.get(relPath);
    if (!reading) {
      reading = this.read(relPath);
      this.texts.set(relPath, reading);
      // A failed read is not remembered: the next check reads the file again.
      reading.catch(() => this.texts.get(relPath) === reading && this.texts.delete(relPath));
    }
    return reading;
  }

  private async read(relPath: string): Promise<FileText> {
    try {
      const text = new TextDecoder().decode(await this.fs.readFile(path.join(this.root, relPath)));
      return { exists: true, text, lines: new TextLines(text) };
    } catch (error) {
      if (isNotAFile(error)) return { exists: false };
      if (isFileAccessError(error)) return { exists: false, refused: error };
      throw error;
    }
  }
}

function checkLines(citation: PartCitation, lines: LineRange, file: TextLines, anchor: string | undefined): PartVerdict | undefined {
  const inside = inFile(lines, file);
  const now = inside ? file.fingerprint(lines) : undefined;
  const recorded = anchor === undefined ? undefined : parseAnchor(anchor).body;
  if (now !== undefined && now === recorded) return undefined;
  // Code added or removed above (or below, for a range now past the end): the same text at other lines.
  const moved = recorded && file.find(recorded, lines.end - lines.start + 1, lines.start);
  if (moved) {
    const relocatedTo = `${citation.path}${lineRangeText(moved)}`;
    return { code: DriftCode.MovedSymbol, message: `The cited lines of ${citation.path} moved: the same text is now at ${relocatedTo}.`, extra: { relocatedTo } };
  }
  if (!inside) {
    const span = lines.end === lines.start ? `line ${lines.start} is` : `lines ${lines.start}–${lines.end} run`;
    return { code: DriftCode.MissingSymbol, message: `${citation.path} has ${file.count} line${file.count === 1 ? '' : 's'}; the cited ${span} past its end.` };
  }
  if (recorded === undefined) return unverified(citation, bodyAnchor(now!));
  return { code: DriftCode.BodyChanged, message: `The text of ${describe(lines)} of ${citation.path} changed since this page was verified.`, extra: { anchor: bodyAnchor(now!) } };
}

function checkKey(citation: PartCitation, text: string, anchor: string | undefined): PartVerdict | undefined {
  const key = lookUpKey(citation.path, text, citation.symbol!);
  if ('unsupported' in key) return { code: DriftCode.Unverified, message: key.unsupported };
  if ('unreadable' in key) return { code: DriftCode.UnreadableFile, message: key.unreadable };
  if ('missing' in key) return { code: DriftCode.MissingSymbol, message: key.missing };
  const recorded = anchor === undefined ? undefined : parseAnchor(anchor).body;
  if (recorded === key.fingerprint) return undefined;
  if (recorded === undefined) return unverified(citation, bodyAnchor(key.fingerprint));
  return { code: DriftCode.BodyChanged, message: `The value of ${citation.symbol} in ${citation.path} changed since this page was verified.`, extra: { anchor: bodyAnchor(key.fingerprint) } };
}

function unverified(citation: PartCitation, anchor: string): PartVerdict {
  return { code: DriftCode.Unverified, message: unverifiedMessage(citation.text), extra: { anchor } };
}

function inFile(lines: LineRange, file: TextLines): boolean {
  return lines.start >= 1 && lines.end >= lines.start && lines.end <= file.count;
}

function describe(lines: LineRange): string {
  return lines.start === lines.end ? `line ${lines.start}` : `lines ${lines.start}–${lines.end}`;
}

/** A line range's text and a key's value are recorded as the body of the cited code. */
function bodyAnchor(fingerprint: string): string {
  return `body:${fingerprint}`;
}
