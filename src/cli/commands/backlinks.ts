import { WikiError } from '../../core/errors';
import { slugProblem } from '../../core/pages/slug';
import type { CliCommand } from '../command';
import { usageLine } from '../help';

/** `repo-wiki backlinks SLUG`: the pages linking to a page, one link per line (page:line: text). */
export const backlinks: CliCommand = {
  name: 'backlinks',
  summary: 'the pages that link to a page, with each link\'s line',
  usage: 'SLUG',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [],
  async run({ wiki, positionals, format }, io) {
    if (positionals.length !== 1) {
      io.err(usageLine(backlinks));
      return 2;
    }
    const [slug] = positionals;
    const problem = slugProblem(slug);
    if (problem) throw new WikiError('invalid-slug', `"${slug.slice(0, 100)}" is not a valid page slug: ${problem}.`);
    const { LinkIndex } = await import('../../core/authoring');
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
  },
};
