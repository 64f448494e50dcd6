// A minimal TypeScript tokenizer for splitting a file into runs of statements: brackets, strings,
// templates, regular expressions, names and line breaks, with comments skipped by native string
// search. It reports the same token kinds as the compiler's scanner for what the split reads, and
// one stand-in kind for the other punctuation. The compiler's scanner spends most of a large file's
// scan on JSDoc; this one skips a comment in one `indexOf`.
import ts from 'typescript';

const K = ts.SyntaxKind;
const LINE_END = /[\n\r\u2028\u2029]/g;
// Whitespace outside ASCII that JavaScript allows between tokens.
const WIDE_SPACE = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]/;

// Every keyword's text to its kind, as the compiler's scanner reports it.
const KEYWORDS = new Map<string, ts.SyntaxKind>();
for (let kind = K.FirstKeyword; kind <= K.LastKeyword; kind++) KEYWORDS.set(ts.tokenToString(kind)!, kind);

function isLineEnd(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

function isNamePart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c === 92
    || (c > 127 && !isLineEnd(c) && !WIDE_SPACE.test(String.fromCharCode(c)));
}

export class QuickScanner {
  private pos = 0;
  private tokenStart = 0;
  private lineBreak = false;

  constructor(private readonly text: string) {}

  getTokenStart(): number {
    return this.tokenStart;
  }

  getTokenText(): string {
    return this.text.slice(this.tokenStart, this.pos);
  }

  hasPrecedingLineBreak(): boolean {
    return this.lineBreak;
  }

  scan(): ts.SyntaxKind {
    const text = this.text;
    const n = text.length;
    let i = this.pos;
    this.lineBreak = false;
    for (;;) {
      if (i >= n) {
        this.tokenStart = this.pos = n;
        return K.EndOfFileToken;
      }
      const c = text.charCodeAt(i);
      if (isLineEnd(c)) {
        this.lineBreak = true;
        i++;
      } else if (c === 32 || c === 9 || c === 11 || c === 12 || (c > 127 && WIDE_SPACE.test(text[i]))) {
        i++;
      } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
        LINE_END.lastIndex = i + 2;
        i = LINE_END.exec(text)?.index ?? n;
      } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
        const close = text.indexOf('*/', i + 2);
        const end = close < 0 ? n : close + 2;
        if (!this.lineBreak) {
          LINE_END.lastIndex = i + 2;
          const found = LINE_END.exec(text);
          this.lineBreak = !!found && found.index < end;
        }
        i = end;
      } else break;
    }
    this.tokenStart = i;
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57 || (c === 46 && text.charCodeAt(i + 1) >= 48 && text.charCodeAt(i + 1) <= 57)) {
      let j = i + 1;
      while (j < n && (isNamePart(text.charCodeAt(j)) || text.charCodeAt(j) === 46)) j++;
      this.pos = j;
      return K.NumericLiteral;
    }
    if (isNamePart(c)) {
      let j = i + 1;
      while (j < n && isNamePart(text.charCodeAt(j))) j++;
      this.pos = j;
      // Keywords are 2 to 11 lowercase letters: only such names pay for a lookup.
      return j - i >= 2 && j - i <= 11 && c >= 97 && c <= 122 ? KEYWORDS.get(text.slice(i, j)) ?? K.Identifier : K.Identifier;
    }
    if (c === 34 || c === 39) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === c) {
          j++;
          break;
        }
        if (isLineEnd(d)) break;
        j += d === 92 ? 2 : 1;
      }
      this.pos = j;
      return K.StringLiteral;
    }
    if (c === 96) return this.template(i + 1, K.NoSubstitutionTemplateLiteral, K.TemplateHead);
    this.pos = i + 1;
    switch (c) {
      case 123: return K.OpenBraceToken;
      case 125: return K.CloseBraceToken;
      case 40: return K.OpenParenToken;
      case 41: return K.CloseParenToken;
      case 91: return K.OpenBracketToken;
      case 93: return K.CloseBracketToken;
      case 59: return K.SemicolonToken;
      case 44: return K.CommaToken;
      case 64: return K.AtToken;
      case 42: return K.AsteriskToken;
      case 62: return this.pair(61, K.GreaterThanToken, K.GreaterThanEqualsToken);
      case 61: return this.pair(62, K.EqualsToken, K.EqualsGreaterThanToken);
      case 47: return this.pair(61, K.SlashToken, K.SlashEqualsToken);
      case 43: return this.pair(43, K.PlusToken, K.PlusPlusToken);
      case 45: return this.pair(45, K.MinusToken, K.MinusMinusToken);
      default: return K.ExclamationToken; // any other punctuation: none of it matters to the split
    }
  }

  /** `two` when the character after this one is `second` (and then it is part of the token), else `one`. */
  private pair(second: number, one: ts.SyntaxKind, two: ts.SyntaxKind): ts.SyntaxKind {
    if (this.text.charCodeAt(this.pos) !== second) return one;
    this.pos++;
    return two;
  }

  /** After a `}` that closes a template's `${`: the rest of the template, up to the next `${` or its end. */
  reScanTemplateToken(): ts.SyntaxKind {
    return this.template(this.tokenStart + 1, K.TemplateTail, K.TemplateMiddle);
  }

  /** After a `/` where an expression may start: a regular expression literal, flags included. */
  reScanSlashToken(): ts.SyntaxKind {
    const text = this.text;
    let j = this.tokenStart + 1;
    let inClass = false;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (isLineEnd(c)) break;
      if (c === 92) {
        j += 2;
        continue;
      }
      j++;
      if (c === 91) inClass = true;
      else if (c === 93) inClass = false;
      else if (c === 47 && !inClass) break;
    }
    while (j < text.length && isNamePart(text.charCodeAt(j))) j++;
    this.pos = j;
    return K.RegularExpressionLiteral;
  }

  private template(from: number, whole: ts.SyntaxKind, head: ts.SyntaxKind): ts.SyntaxKind {
    const text = this.text;
    let j = from;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (c === 96) {
        this.pos = j + 1;
        return whole;
      }
      if (c === 36 && text.charCodeAt(j + 1) === 123) {
        this.pos = j + 2;
        return head;
      }
      j += c === 92 ? 2 : 1;
    }
    this.pos = text.length;
    return whole;
  }
}
