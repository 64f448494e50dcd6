import { LinkIndex, renamePage } from '../core/authoring';
import { WikiError } from '../core/errors';
import { slugProblem } from '../core/pages/slug';
import type { Wiki } from '../core/wiki/wiki';

interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const BACKLINKS_USAGE = 'Usage: repo-wiki backlinks SLUG [--format text|json]';
export const RENAME_USAGE = 'Usage: repo-wiki page rename OLD NEW';

/** `repo-wiki backlinks SLUG`: the pages linking to a page, one link per line (page:line: text). */
export async function backlinksCommand(wiki: Wiki, args: readonly string[], format: 'text' | 'json', io: Io): Promise<number> {
  if (args.length !== 1) {
    io.err(BACKLINKS_USAGE);
    return 2;
  }
  const [slug] = args;
  const problem = slugProblem(slug);
  if (problem) throw new WikiError('invalid-slug', `"${slug.slice(0, 100)}" is not a valid page slug: ${problem}.`);
  const index = LinkIndex.of(await wiki.loadPages());
  if (!index.page(slug)) throw new WikiError('invalid-page', `There is no page "${slug}".`, 'Check the slug (the file name in .wiki/pages/ without .md).');
  const links = index.backlinks(slug);
  if (format === 'json') {
    io.out(JSON.stringify({ slug, backlinks: links.map((link) => ({ from: link.from, path: link.relPath, line: link.range.start.line + 1, character: link.range.start.character + 1, ...(link.heading ? { heading: link.heading } : {}), text: link.lineText })) }));
    return 0;
  }
  if (!links.length) io.out(`No page links to [[${slug}]].`);
  for (const link of links) io.out(`${link.relPath}:${link.range.start.line + 1}: ${link.lineText}`);
  return 0;
}

/** `repo-wiki page rename OLD NEW`: renames a page and every link to it; refused (exit 2, nothing changed) when NEW is invalid or taken. */
export async function pageRenameCommand(wiki: Wiki, args: readonly string[], format: 'text' | 'json', io: Io): Promise<number> {
  if (args.length !== 2) {
    io.err(RENAME_USAGE);
    return 2;
  }
  const result = await renamePage(wiki, args[0], args[1]);
  if (format === 'json') io.out(JSON.stringify(result));
  else io.out(`Renamed [[${result.from}]] to [[${result.to}]]; ${result.links} link${result.links === 1 ? '' : 's'} in ${result.updated.length} page${result.updated.length === 1 ? '' : 's'} updated.`);
  return 0;
}
