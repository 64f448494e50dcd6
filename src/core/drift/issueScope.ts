import type { DriftIssue } from './driftEngine';

/** What a drift report covers: no `pages`, the whole wiki; else those pages, and with `paths` only their citations into those files. */
export interface ReportScope {
  pages?: string[];
  paths?: string[];
}

/** The issues by page after a report: those it covers replaced by its own, the rest kept as they were. */
export function replaceIssues(previous: ReadonlyMap<string, DriftIssue[]> | undefined, report: ReportScope & { issues: DriftIssue[] }): Map<string, DriftIssue[]> {
  const byPage = new Map(report.pages ? previous : undefined);
  const paths = report.paths && new Set(report.paths);
  for (const page of report.pages ?? []) {
    // A save re-checks only the citations into the saved files: a page's other issues still stand.
    const kept = paths ? (byPage.get(page) ?? []).filter((issue) => !paths.has(issue.data.path)) : [];
    if (kept.length) byPage.set(page, kept);
    else byPage.delete(page);
  }
  for (const issue of report.issues) byPage.set(issue.page, [...(byPage.get(issue.page) ?? []), issue]);
  if (paths) for (const page of report.pages ?? []) byPage.get(page)?.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return byPage;
}
