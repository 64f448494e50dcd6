// Splits a TypeScript file into runs of whole top-level statements with a quick tokenizer (a
// small fraction of a parse), and notes the names each run declares, so that a lookup parses only the
// runs that may declare the cited name.
//
// A run starts at a declaration keyword at bracket depth 0 that must begin a new statement: after
// `;`, after a `}` closing to depth 0, or on a new line after a token that ends an expression
// (where ASI applies). A missed start only makes a run longer; a wrong one yields a run that does
// not parse on its own, and the caller then parses the whole file.
import ts from 'typescript';
import { QuickScanner } from './quickScanner';
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

// Keywords after which, at depth 0, comes the name a statement declares.
const NAMES_NEXT = new Set([K.ConstKeyword, K.LetKeyword, K.VarKeyword, K.FunctionKeyword, K.ClassKeyword, K.InterfaceKeyword, K.TypeKeyword, K.EnumKeyword, K.NamespaceKeyword, K.ModuleKeyword]);
const DECLARES_VARIABLES = new Set([K.ConstKeyword, K.LetKeyword, K.VarKeyword]);

/** A token that can be a declaration's name: an identifier, or a keyword that is not reserved (`type`, `of`, ...). */
function isName(token: ts.SyntaxKind): boolean {
  return token === K.Identifier || (token >= K.AbstractKeyword && token <= K.LastKeyword); // the contextual keywords
}

export interface DeclarationRuns {
  /** Start offsets of the runs, ascending; the first is 0. */
  starts: number[];
  /** The runs each top-level name may be declared in (a superset: type parameters are listed too). */
  declared: Map<string, number[]>;
  /** Runs whose names the scan cannot tell (destructuring, `declare global`, `declare module 'x'`). */
  opaque: number[];
}

export function declarationRuns(text: string): DeclarationRuns {
  const scanner = new QuickScanner(text);
  const runs: DeclarationRuns = { starts: [0], declared: new Map(), opaque: [] };
  const run = () => runs.starts.length - 1;
  const declare = (name: string) => {
    const list = runs.declared.get(name);
    if (!list) runs.declared.set(name, [run()]);
    else if (list[list.length - 1] !== run()) list.push(run());
  };
  const opaque = () => {
    if (runs.opaque[runs.opaque.length - 1] !== run()) runs.opaque.push(run());
  };
  let depth = 0;
  const templates: number[] = []; // depth at each open `${`
  let prev: ts.SyntaxKind = K.Unknown;
  let decorated = false; // an `@` at depth 0 since the last declaration keyword: keep decorators with their class
  let nameAfter: ts.SyntaxKind | undefined; // the keyword (or `,` of a variable list) whose name comes next
  let variablesInRun = false;
  for (let token = scanner.scan(); token !== K.EndOfFileToken; token = scanner.scan()) {
    if (token === K.OpenBraceToken || token === K.OpenParenToken || token === K.OpenBracketToken) depth++;
    else if (token === K.CloseBraceToken) {
      if (templates.length && templates[templates.length - 1] === depth) {
        token = scanner.reScanTemplateToken();
        if (token === K.TemplateTail) templates.pop();
      } else depth--;
    } else if (token === K.CloseParenToken || token === K.CloseBracketToken) depth--;
    else if (token === K.TemplateHead) templates.push(depth);
    else if ((token === K.SlashToken || token === K.SlashEqualsToken) && regexMayFollow(prev)) token = scanner.reScanSlashToken();

    const top = depth === 0 && !templates.length;
    if (nameAfter !== undefined && (top || token === K.OpenBraceToken || token === K.OpenBracketToken)) {
      if (isName(token)) declare(scanner.getTokenText());
      else if (token === K.OpenBraceToken || token === K.OpenBracketToken) {
        if (nameAfter === K.CommaToken || DECLARES_VARIABLES.has(nameAfter)) opaque(); // a destructuring pattern
      } else if (token === K.StringLiteral) opaque(); // `declare module 'x'`
      if (!(token === K.AsteriskToken && nameAfter === K.FunctionKeyword) && !(token === K.EnumKeyword)) nameAfter = undefined;
    }
    if (!top) {
      prev = token;
      continue;
    }
    if (token === K.AtToken) decorated = true;
    else if (STARTS_STATEMENT.has(token)) {
      if (!decorated && startsStatement(prev, token, scanner.hasPrecedingLineBreak()) && scanner.getTokenStart() > 0) {
        runs.starts.push(scanner.getTokenStart());
        variablesInRun = false;
      }
      decorated = false;
    }
    if (NAMES_NEXT.has(token) && nameAfter === undefined) nameAfter = token;
    if (DECLARES_VARIABLES.has(token)) variablesInRun = true;
    else if (token === K.CommaToken && variablesInRun) nameAfter = K.CommaToken;
    else if (token === K.DefaultKeyword && prev === K.ExportKeyword) declare('default');
    else if (token === K.GlobalKeyword) opaque();
    prev = token;
  }
  return runs;
}

function startsStatement(prev: ts.SyntaxKind, token: ts.SyntaxKind, lineBreak: boolean): boolean {
  if (prev === K.SemicolonToken || prev === K.CloseBraceToken) return true;
  if (!lineBreak) return false;
  return ENDS_EXPRESSION.has(prev) || (prev === K.GreaterThanToken && STARTS_AFTER_TYPE_ARGUMENTS.has(token));
}

const IDENTIFIER_PART = /[\w$]/;

/** Indexes of the runs that may declare the top-level name `word`, ascending. */
export function runsDeclaring(text: string, runs: DeclarationRuns, word: string): number[] {
  const found = new Set(runs.declared.get(word));
  if (runs.opaque.length) {
    const opaque = new Set(runs.opaque);
    for (const run of runsMentioning(text, runs.starts, word)) if (opaque.has(run)) found.add(run);
  }
  return [...found].sort((a, b) => a - b);
}

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
