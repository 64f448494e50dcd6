import { DriftCode } from './driftCodes';
import type { DriftIssue } from './driftEngine';

/** Where a citation should point now, for its "update citation" fix: a moved symbol's new file, a renamed symbol's new name, a line range's new lines. */
export function relocatedCitation(issue: Pick<DriftIssue, 'code' | 'data'>): string | undefined {
  const { data } = issue;
  if (data.relocatedTo) return data.relocatedTo;
  if (issue.code === DriftCode.MovedSymbol && data.movedTo) return `${data.movedTo}:${data.symbol}`;
  if (issue.code === DriftCode.RenamedSymbol && data.renamedTo) return `${data.movedTo ?? data.path}:${data.renamedTo}`;
  return undefined;
}
