import type { LineRange } from './citations';
import { hex8 } from './symbols';

/**
 * The fingerprint of a line-range citation is the text of its lines (line endings and trailing
 * blanks ignored, so a CRLF checkout or an editor's trim is not drift). It is a hash of the lines'
 * own hashes, so the same text is found again at other lines in one pass over the file.
 */
export class TextLines {
  private readonly hashes: Uint32Array;

  constructor(text: string) {
    const lines = text.split('\n');
    if (lines.length > 1 && lines.at(-1) === '') lines.pop(); // the newline ending the last line starts no line
    this.hashes = new Uint32Array(lines.map((line) => fnv(line.trimEnd())));
  }

  get count(): number {
    return this.hashes.length;
  }

  /** The fingerprint of lines `range.start`–`range.end` (1-based); the range must lie in the file. */
  fingerprint(range: LineRange): string {
    return hex8(this.combined(range.start - 1, range.end - range.start + 1));
  }

  /** Where lines with this fingerprint and length are now: the place nearest `near` (1-based) when they repeat. */
  find(fingerprint: string, length: number, near: number): LineRange | undefined {
    let best: number | undefined;
    for (let first = 0; first + length <= this.hashes.length; first++) {
      if (hex8(this.combined(first, length)) !== fingerprint) continue;
      if (best === undefined || Math.abs(first + 1 - near) < Math.abs(best + 1 - near)) best = first;
    }
    return best === undefined ? undefined : { start: best + 1, end: best + length };
  }

  private combined(first: number, length: number): number {
    let hash = 0x811c9dc5;
    for (let i = first; i < first + length; i++) hash = Math.imul(hash ^ this.hashes[i], 0x01000193);
    return hash;
  }
}

/** FNV-1a over a string's UTF-16 code units. */
export function fnv(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
