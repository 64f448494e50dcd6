import * as z from 'zod/mini';
import type { ToolDependencies } from './dependencies';
import { describeDriftIssues, isPage, loadPage, slugInput } from './pageAccess';
import type { WikiTool } from './tool';
import { defineTool, field, plural, success } from './toolKit';

const input = z.strictObject({ slug: z.optional(slugInput) });

export function checkDriftTool(deps: Pick<ToolDependencies, 'wiki' | 'pages' | 'drift' | 'deadlineMs'>): WikiTool {
  return defineTool({
    name: 'check_drift',
    description:
      "Checks wiki pages' code citations against the current code: a missing file or symbol, a symbol that moved, " +
      'a signature or body that changed since the page was verified. Give a slug for one page, or nothing for the whole wiki. ' +
      'Use it to judge whether a page can still be trusted, or to find pages that need updating.',
    input,
    narrow: 'Check one page at a time: give its slug (search_wiki finds the pages).',
    deadlineMs: deps.deadlineMs,
    label: (raw) => (field(raw, 'slug') ? `Checked the page ${field(raw, 'slug')} for drift` : 'Checked the wiki for drift'),
    async run({ slug }, signal) {
      let pages;
      if (slug) {
        const page = await loadPage(deps, slug);
        if (!isPage(page)) return page;
        pages = [page];
      } else pages = await deps.pages();
      const report = await deps.drift.check({ slugs: pages.map((page) => page.slug) }, signal);
      signal?.throwIfAborted();
      const checked = `${plural(report.citationsChecked, 'citation')} in ${plural(report.pagesChecked, 'page')}`;
      if (!report.issues.length) return success(`No drift: ${checked} match the code.`, 'no drift');
      return success(`${plural(report.issues.length, 'issue')} in ${checked}:\n${describeDriftIssues(report.issues)}`, plural(report.issues.length, 'drift issue'));
    },
  });
}
