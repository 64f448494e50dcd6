import type { WikiLink } from '../model';
import { LineMap } from '../text/text';

const FENCE = /^( {0,3})(`{3,}|~{3,})/;

/** Blanks fenced code blocks (and, optionally, inline code spans) so offsets stay valid. */
export function maskCode(markdown: string, options: { inlineCode: boolean }): string {
  const lines = markdown.split('\n');
  let fence: string | undefined;
  const masked = lines.map((line) => {
    const match = FENCE.exec(line);
    if (fence) {
      if (match && match[2][0] === fence[0] && match[2].length >= fence.length && !line.slice(match[0].length).trim()) {
        fence = undefined;
      }
      return blank(line);
    }
    if (match) {
      fence = match[2];
      return blank(line);
    }
    return options.inlineCode ? line.replace(/(`+)[^`]*?\1/g, blank) : line;
  });
  return masked.join('\n');
}

function blank(text: string): string {
  return ' '.repeat(text.length);
}

export const LINK = /\[\[([^\[\]|\n]+)(?:\|([^\[\]\n]*))?\]\]/g;

/** `slug#heading` (as written inside `[[...]]`) split into the page slug and the heading. */
export function splitLinkTarget(raw: string): { slug: string; heading?: string } {
  const hash = raw.indexOf('#');
  if (hash < 0) return { slug: raw.trim() };
  const heading = raw.slice(hash + 1).trim();
  return { slug: raw.slice(0, hash).trim(), ...(heading ? { heading } : {}) };
}

/** `[[slug]]`, `[[slug#heading]]` and `[[slug|label]]` outside code; ranges are in file coordinates. */
export function parseLinks(body: string, bodyStartLine: number): WikiLink[] {
  const masked = maskCode(body, { inlineCode: true });
  const lines = new LineMap(body, bodyStartLine);
  const links: WikiLink[] = [];
  for (const match of masked.matchAll(LINK)) {
    const start = match.index ?? 0;
    const label = match[2]?.trim();
    const { slug, heading } = splitLinkTarget(match[1]);
    if (!slug) continue; // `[[#heading]]`: a heading of the same page, not a page link
    links.push({
      target: slug,
      ...(heading ? { heading } : {}),
      ...(label ? { label } : {}),
      range: lines.range(start, start + match[0].length),
    });
  }
  return links;
}
