import type { WikiPage } from '../model';
import { DriftCode } from './driftCodes';
import type { DriftIssue } from './driftEngine';

/** The drift a review clears: code that changed since its page was verified, or was never verified. A review re-stamps it; missing or moved code needs the page edited instead. */
export const REVIEWABLE: readonly DriftCode[] = [DriftCode.SignatureChanged, DriftCode.TypeChanged, DriftCode.BodyChanged, DriftCode.Unverified];

export interface FlaggedPage {
  slug: string;
  relPath: string;
  /** What drift flags on it, in page order. */
  flags: { code: DriftCode; citation: string }[];
}

/** The pages drift flags with something a review clears, in the order of the report, each with its flags. */
export function flaggedPages(pages: readonly WikiPage[], issues: readonly DriftIssue[]): FlaggedPage[] {
  const byPath = new Map(pages.map((page) => [page.relPath, page]));
  const flagged = new Map<string, FlaggedPage>();
  for (const issue of issues) {
    const page = byPath.get(issue.page);
    if (!page || !REVIEWABLE.includes(issue.code)) continue;
    if (!flagged.has(page.slug)) flagged.set(page.slug, { slug: page.slug, relPath: page.relPath, flags: [] });
    flagged.get(page.slug)!.flags.push({ code: issue.code, citation: issue.data.citation });
  }
  return [...flagged.values()];
}
