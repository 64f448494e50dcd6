import type { WikiPage } from '../model';
import { boundedPatchText } from '../text/boundedDiff';
import { parseCitationText, type Citation } from './citations';
import { DriftCode } from './driftCodes';
import type { DriftIssue } from './driftEngine';
import type { WhatChanged } from './whatChanged';

/** What changed in a citation since `anchor`, as the front end finds it (the engine here, or the drift worker). */
export type WhatChangedOf = (citation: Pick<Citation, 'path' | 'symbol' | 'text' | 'lines'>, anchor: string | undefined) => Promise<WhatChanged>;

/**
 * The diff of each changed body or signature since the commit its anchor records, as `drift --diff`
 * prints it and `generate --update` sends it; why not when it cannot be had.
 */
export async function citationDiffsOf(pages: readonly WikiPage[], issues: readonly DriftIssue[], whatChanged: WhatChangedOf): Promise<Map<DriftIssue, string>> {
  const diffs = new Map<DriftIssue, string>();
  const byPath = new Map(pages.map((page) => [page.relPath, page]));
  for (const issue of issues) {
    if (issue.code !== DriftCode.SignatureChanged && issue.code !== DriftCode.BodyChanged) continue;
    const anchor = byPath.get(issue.page)?.frontmatter.anchors?.[issue.data.citation];
    const change = await whatChanged(parseCitationText(issue.data.citation) ?? { text: issue.data.citation, path: issue.data.path, symbol: issue.data.symbol }, anchor);
    diffs.set(issue, 'unavailable' in change ? change.unavailable : boundedPatchText(`a/${change.path}`, `b/${change.path}`, `${change.before}\n`, `${change.after}\n`, `at ${change.commit}`, 'now'));
  }
  return diffs;
}
