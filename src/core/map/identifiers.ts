/**
 * How often each identifier occurs in a source text: the references of a file, for the map's graph.
 * A plain scan, no parser: every word that could name a declaration counts, in code, strings and
 * comments alike (a name in a docstring is a reference to a reader too). Identifiers of one
 * character name nothing another file declares worth a map.
 */
export function identifierCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const length = text.length;
  for (let i = 0; i < length; ) {
    const code = text.charCodeAt(i);
    if (!isIdentifierStart(code)) {
      // A number's digits and letters are not an identifier (0x1F, 10px).
      i++;
      if (isDigit(code)) while (i < length && isIdentifierPart(text.charCodeAt(i))) i++;
      continue;
    }
    const start = i++;
    while (i < length && isIdentifierPart(text.charCodeAt(i))) i++;
    if (i - start < 2) continue;
    const word = text.slice(start, i);
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return counts;
}

function isIdentifierStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || isDigit(code);
}
