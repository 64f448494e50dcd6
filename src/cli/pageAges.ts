import { pageAgeTags, parsePageHistory, type PageHistory } from '../core/pages/pageAge';
import type { Wiki } from '../core/wiki/wiki';

/** Each page's history from one `git log`; empty when git cannot tell (no repository, no commits). */
export async function pageHistory(wiki: Wiki): Promise<Map<string, PageHistory>> {
  const { SimpleGitWiki } = require('../adapters/git/gitWiki') as typeof import('../adapters/git/gitWiki'); // git.js beside the CLI; require, not import(): see mcp.ts
  return parsePageHistory(await new SimpleGitWiki(wiki.root).pagesLog());
}

/** Age tags for the librarian's catalog; "age unknown" when git cannot tell. */
export async function pageAges(wiki: Wiki, pages: Parameters<typeof pageAgeTags>[1]): Promise<Map<string, string>> {
  return pageAgeTags(await pageHistory(wiki), pages, new Date());
}
