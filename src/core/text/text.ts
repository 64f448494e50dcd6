import type { Position, Range } from '../model';

/** Maps string offsets to 0-based line/character positions. */
export class LineMap {
  private readonly lineStarts: number[] = [0];

  constructor(text: string, private readonly firstLine = 0) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  position(offset: number): Position {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.lineStarts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: this.firstLine + low, character: offset - this.lineStarts[low] };
  }

  range(start: number, end: number): Range {
    return { start: this.position(start), end: this.position(end) };
  }
}

export function lineRange(line: number, length = 0): Range {
  return { start: { line, character: 0 }, end: { line, character: length } };
}

/** Git conflict markers at the start of a line. */
export function hasConflictMarkers(text: string): boolean {
  return /^(<{7}|>{7})( |$)/m.test(text) && /^={7}$/m.test(text);
}
