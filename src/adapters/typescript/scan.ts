import ts from 'typescript';

const K = ts.SyntaxKind;

/** Whether a `/` after this token starts a regular expression rather than a division. */
export function regexMayFollow(prev: ts.SyntaxKind): boolean {
  if (prev >= K.FirstPunctuation && prev <= K.LastPunctuation) {
    return prev !== K.CloseParenToken && prev !== K.CloseBracketToken && prev !== K.CloseBraceToken && prev !== K.PlusPlusToken && prev !== K.MinusMinusToken;
  }
  if (prev >= K.FirstReservedWord && prev <= K.LastReservedWord) {
    return prev !== K.ThisKeyword && prev !== K.SuperKeyword && prev !== K.NullKeyword && prev !== K.TrueKeyword && prev !== K.FalseKeyword;
  }
  return prev === K.Unknown || prev === K.AwaitKeyword || prev === K.YieldKeyword || prev === K.OfKeyword;
}
