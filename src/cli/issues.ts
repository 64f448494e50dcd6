import type { LintIssue } from '../core/model';
import type { Wiki } from '../core/wiki/wiki';

/** Errors of the wiki as a whole (a pages folder that leads out), which keep pages from being read at all. */
export async function wikiErrors(wiki: Wiki): Promise<LintIssue[]> {
  return (await wiki.wikiProblems()).filter((problem) => problem.severity === 'error');
}

/** An issue as one line: `page:line:column  severity  code  message`. */
export function issueLine(issue: LintIssue): string {
  const { line, column } = issueJson(issue);
  return `${issue.page}:${line}:${column}  ${issue.severity.padEnd(7)}  ${issue.code}  ${issue.message}`;
}

/** An issue as --format json prints it, with 1-based line and column. */
export function issueJson(issue: LintIssue) {
  return {
    page: issue.page,
    line: issue.range.start.line + 1,
    column: issue.range.start.character + 1,
    code: issue.code,
    severity: issue.severity,
    message: issue.message,
  };
}
