// Splits a TypeScript file into runs of whole top-level statements with the scanner alone (a
// fraction of a parse), so that a lookup parses only the runs that mention the cited name.
//
// A run starts at a declaration keyword at bracket depth 0 that must begin a new statement: after
// `;`, after a `}` closing to depth 0, or on a new line after a token that ends an expression
// (where ASI applies). A missed start only makes a run longer; a wrong one yields a run that does
// not parse on its own, and the caller then parses the whole file.
import ts from 'typescript';
import { regexMayFollow } from './scan';

const K = ts.SyntaxKind;

const STARTS_STATEMENT = new Set([
  K.ExportKeyword, K.ImportKeyword, K.ConstKeyword, K.LetKeyword, K.VarKeyword, K.FunctionKeyword, K.ClassKeyword,
  K.AbstractKeyword, K.AsyncKeyword, K.InterfaceKeyword, K.TypeKeyword, K.EnumKeyword, K.NamespaceKeyword,
  K.ModuleKeyword, K.DeclareKeyword,
]);

// After `T<U>` and a line break, these cannot continue a comparison in valid code; `function`,
// `class`, `async`, `import` and `let` could.
const STARTS_AFTER_TYPE_ARGUMENTS = new Set([...STARTS_STATEMENT].filter((k) => ![K.FunctionKeyword, K.ClassKeyword, K.AsyncKeyword, K.ImportKeyword, K.LetKeyword].includes(k)));

const ENDS_EXPRESSION = new Set([
  K.Identifier, K.PrivateIdentifier, K.StringLiteral, K.NumericLiteral, K.BigIntLiteral, K.NoSubstitutionTemplateLiteral,
  K.TemplateTail, K.RegularExpressionLiteral, K.CloseParenToken, K.CloseBracketToken, K.PlusPlusToken, K.MinusMinusToken,
  K.ThisKeyword, K.SuperKeyword, K.NullKeyword, K.TrueKeyword, K.FalseKeyword, K.UndefinedKeyword, K.VoidKeyword,
  K.AnyKeyword, K.UnknownKeyword, K.NeverKeyword, K.StringKeyword, K.NumberKeyword, K.BooleanKeyword, K.SymbolKeyword,
  K.BigIntKeyword, K.ObjectKeyword,
]);

/** Start offsets of the runs, ascending; the first is 0. */
export function declarationRuns(scanner: ts.Scanner, text: string): number[] {
  scanner.setText(text);
  scanner.setLanguageVariant(ts.LanguageVariant.Standard);
  const starts = [0];
  let depth = 0;
  const templates: number[] = []; // depth at each open `${`
  let prev: ts.SyntaxKind = K.Unknown;
  let decorated = false; // an `@` at depth 0 since the last declaration keyword: keep decorators with their class
  for (let token = scanner.scan(); token !== K.EndOfFileToken; token = scanner.scan()) {
    if (token === K.OpenBraceToken || token === K.OpenParenToken || token === K.OpenBracketToken) depth++;
    else if (token === K.CloseBraceToken) {
      if (templates.length && templates[templates.length - 1] === depth) {
        token = scanner.reScanTemplateToken(false);
        if (token === K.TemplateTail) templates.pop();
      } else depth--;
    } else if (token === K.CloseParenToken || token === K.CloseBracketToken) depth--;
    else if (token === K.TemplateHead) templates.push(depth);
    else if ((token === K.SlashToken || token === K.SlashEqualsToken) && regexMayFollow(prev)) token = scanner.reScanSlashToken();
    else if (token === K.AtToken && depth === 0) decorated = true;
    else if (depth === 0 && !templates.length && STARTS_STATEMENT.has(token)) {
      if (!decorated && startsStatement(prev, token, scanner.hasPrecedingLineBreak()) && scanner.getTokenStart() > 0) starts.push(scanner.getTokenStart());
      decorated = false;
    }
    prev = token;
  }
  return starts;
}

function startsStatement(prev: ts.SyntaxKind, token: ts.SyntaxKind, lineBreak: boolean): boolean {
  if (prev === K.SemicolonToken || prev === K.CloseBraceToken) return true;
  if (!lineBreak) return false;
  return ENDS_EXPRESSION.has(prev) || (prev === K.GreaterThanToken && STARTS_AFTER_TYPE_ARGUMENTS.has(token));
}

const IDENTIFIER_PART = /[\w$]/;

/** Indexes of the runs whose text mentions `word` as a whole identifier. */
export function runsMentioning(text: string, starts: readonly number[], word: string): number[] {
  const runs: number[] = [];
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length)) {
    if (IDENTIFIER_PART.test(text[at - 1] ?? '') || IDENTIFIER_PART.test(text[at + word.length] ?? '')) continue;
    const run = runAt(starts, at);
    if (runs[runs.length - 1] !== run) runs.push(run);
  }
  return runs;
}

function runAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
