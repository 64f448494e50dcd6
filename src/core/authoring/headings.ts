import { maskCode } from '../pages/markdown';
import type { Range } from '../model';

export interface Heading {
  text: string;
  level: number;
  /** Range of the whole heading line in the page file. */
  range: Range;
}

const ATX = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;

/** ATX headings of a page body outside fenced code, in file coordinates. */
export function headingsOf(body: string, bodyStartLine: number): Heading[] {
  const headings: Heading[] = [];
  const original = body.split('\n');
  maskCode(body, { inlineCode: false }).split('\n').forEach((line, index) => {
    const match = ATX.exec(line);
    if (!match || !match[2].trim()) return;
    const lineNumber = bodyStartLine + index;
    headings.push({ text: match[2].trim(), level: match[1].length, range: { start: { line: lineNumber, character: 0 }, end: { line: lineNumber, character: original[index].length } } });
  });
  return headings;
}

export interface OutlineSymbol extends Heading {
  children: OutlineSymbol[];
}

/** Headings nested by level: a `##` under the `#` before it. */
export function outlineOf(headings: readonly Heading[]): OutlineSymbol[] {
  const roots: OutlineSymbol[] = [];
  const stack: OutlineSymbol[] = [];
  for (const heading of headings) {
    const node: OutlineSymbol = { ...heading, children: [] };
    while (stack.length && stack[stack.length - 1].level >= heading.level) stack.pop();
    (stack.length ? stack[stack.length - 1].children : roots).push(node);
    stack.push(node);
  }
  return roots;
}
