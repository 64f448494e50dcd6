import { pageAgeTags, parsePageHistory } from '../core/pageAge';
import type { Wiki } from '../core/wiki';

/** Age tags from one `git log` for the librarian's catalog; "age unknown" when git cannot tell. */
export async function pageAges(wiki: Wiki, pages: Parameters<typeof pageAgeTags>[1]): Promise<Map<string, string>> {
  const { SimpleGitWiki } = await import('../adapters/gitWiki');
  const log = await new SimpleGitWiki(wiki.root).pagesLog().catch(() => '');
  return pageAgeTags(parsePageHistory(log), pages, new Date());
}
