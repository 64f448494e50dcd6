import type { LintIssue, WikiPage } from '../model';
import { buildIndex, parseIndex, renderIndexJson, renderIndexMarkdown } from '../index/wikiIndex';
import { issue } from '../pages/page';
import { hasConflictMarkers, lineRange } from '../text/text';
import { LintCode } from './lintCodes';

/** The generated catalog files as they are on disk (undefined when absent), by workspace-relative path. */
export interface IndexFiles {
  json: { path: string; text: string | undefined };
  markdown: { path: string; text: string | undefined };
}

/**
 * `index-out-of-date`: each generated index file that differs from what a rebuild from `pages`
 * writes. A committed index that lags the pages misleads every reader of the catalog (retrieval,
 * the librarian, a reader on GitHub) until someone rebuilds it.
 */
export function indexOutOfDate(pages: readonly WikiPage[], files: IndexFiles): LintIssue[] {
  const index = buildIndex(pages);
  const fix = 'Run "repo-wiki index rebuild" (in VS Code, "Repo Wiki: Rebuild index") and commit the result.';
  const issues: LintIssue[] = [];
  for (const [file, rebuilt] of [[files.json, renderIndexJson(index)], [files.markdown, renderIndexMarkdown(index)]] as const) {
    if (file.text === rebuilt) continue;
    const listed = file === files.json ? listedPages(file.text) : undefined;
    const why = file.text === undefined ? 'is missing'
      : hasConflictMarkers(file.text) ? 'has merge conflict markers'
      : listed !== undefined && listed !== index.pages.length ? `lists ${listed} page${listed === 1 ? '' : 's'}, and .wiki/pages has ${index.pages.length}`
      : 'does not match the pages';
    issues.push(issue(LintCode.IndexOutOfDate, `${file.path} is out of date: it ${why}. ${fix}`, file.path, lineRange(0)));
  }
  return issues;
}

const listedPages = (text: string | undefined) => {
  const parsed = parseIndex(text);
  return 'index' in parsed ? parsed.index.pages.length : undefined;
};
