import * as z from 'zod/mini';
import type { WikiPage } from '../model';
import type { ToolDependencies } from './dependencies';
import { describeDriftIssues, isPage, loadPage, slugInput } from './pageAccess';
import type { WikiTool } from './tool';
import { defineTool, field, plural, success } from './toolKit';

const input = z.strictObject({ slug: slugInput });

export function readPageTool(deps: Pick<ToolDependencies, 'wiki' | 'drift' | 'ages' | 'deadlineMs'>): WikiTool {
  return defineTool({
    name: 'read_page',
    description:
      'Reads one wiki page in full: its frontmatter (title, topic, summary, status, tags, dates, sources) and its markdown body, ' +
      'with its drift status: which of its code citations no longer match the code. Use it after search_wiki, before answering from a page; ' +
      'a page with drift may describe code that has since changed, so check those citations with read_code.',
    input,
    narrow: 'Try again; if it keeps timing out, read the code it cites with read_code instead.',
    deadlineMs: deps.deadlineMs,
    label: (raw) => `Read the page ${field(raw, 'slug')}`,
    async run({ slug }) {
      const page = await loadPage(deps, slug);
      if (!isPage(page)) return page;
      const [report, ages] = await Promise.all([deps.drift.check({ slugs: [page.slug] }), deps.ages?.([page])]);
      const drift = report.issues.length
        ? `drift: ${plural(report.issues.length, 'issue')} in ${plural(report.citationsChecked, 'citation')}\n${describeDriftIssues(report.issues)}`
        : `drift: none (${plural(report.citationsChecked, 'citation')} match the code)`;
      const text = [...frontmatterLines(page, ages?.get(slug)), drift, '', 'body:', page.body].join('\n');
      return success(text, report.issues.length ? `${page.frontmatter.title ?? slug} (${plural(report.issues.length, 'drift issue')})` : (page.frontmatter.title ?? slug));
    },
  });
}

function frontmatterLines(page: WikiPage, age: string | undefined): string[] {
  const { anchors, ...fields } = page.frontmatter;
  return [
    `slug: ${page.slug}`,
    `path: ${page.relPath}`,
    ...Object.entries(fields).map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`),
    ...(age ? [`age: ${age}`] : []),
    `verified citations: ${Object.keys(anchors ?? {}).length}`,
  ];
}
