import * as z from 'zod/mini';
import type { DriftIssue } from '../drift/driftEngine';
import type { WikiPage } from '../model';
import { slugProblem } from '../pages/slug';
import type { ToolDependencies } from './dependencies';
import type { ToolResult } from './tool';
import { failure } from './toolKit';

/** A page slug as the tools take it; a bad one never reaches the file system. */
export const slugInput = z.string().check(
  z.minLength(1),
  z.refine((slug) => slugProblem(slug) === undefined, { error: 'expected a page slug: lowercase a-z, 0-9 and single hyphens, at most 80 characters' }),
  z.describe('The page slug, as search_wiki lists it, e.g. "request-pipeline".'),
);

/** A page read fresh from disk, or the error result: no such page, or a page file Repo Wiki refuses (a link out, a FIFO). */
export async function loadPage(deps: Pick<ToolDependencies, 'wiki'>, slug: string): Promise<WikiPage | ToolResult> {
  const page = await deps.wiki.readPage(slug);
  if (!page) return failure(`There is no wiki page "${slug}". Use search_wiki to find pages.`, 'not found');
  if (!page.readable) return failure(`The page "${slug}" cannot be read: ${page.problems.map((p) => p.message).join(' ')}`, 'refused: unreadable page');
  return page;
}

export function isPage(value: WikiPage | ToolResult): value is WikiPage {
  return 'slug' in value;
}

/** One line per issue: `.wiki/pages/a.md:12 missing-symbol src/a.ts:Foo: Foo is not declared in src/a.ts.` */
export function describeDriftIssues(issues: readonly DriftIssue[]): string {
  return issues.map((issue) => `${issue.page}:${issue.range.start.line + 1} ${issue.code} ${issue.data.citation}: ${issue.message}`).join('\n');
}
