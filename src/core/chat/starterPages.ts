import type { WikiPage } from '../model';

/**
 * The pages `init` copies from wiki-template/pages, by slug and title. They explain the wiki
 * itself, not the codebase, so once real pages exist they must not crowd out real answers.
 * A page counts as a starter only while both its slug and its template title are unchanged.
 */
export const STARTER_PAGE_TITLES: ReadonlyMap<string, string> = new Map([
  ['welcome', 'Welcome to the wiki'],
  ['how-to-write-pages', 'How to write a page'],
]);

export function isStarterPage(page: WikiPage): boolean {
  return STARTER_PAGE_TITLES.get(page.slug) === page.frontmatter.title;
}
