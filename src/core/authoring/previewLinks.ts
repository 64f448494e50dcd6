import * as path from 'node:path';
import type MarkdownItModule = require('markdown-it');
import { parseCitationText } from '../../shared/citationSyntax';
import { splitLinkTarget } from '../pages/markdown';
import { isValidSlug } from '../pages/slug';

type MarkdownIt = ReturnType<typeof MarkdownItModule>;
type StateInline = MarkdownItModule.StateInline;
type Token = MarkdownItModule.Token;

/** Where the document being rendered lies, relative to its workspace folder (with `/`). */
export interface PreviewLocation {
  documentPath: string;
  /** The wiki's pages folder, e.g. `.wiki/pages`. */
  pagesDir: string;
}

export interface PreviewLinkOptions {
  /** The location of the document a render is for (from markdown-it's `env`), or undefined outside a wiki: links stay text. */
  locate(env: unknown): PreviewLocation | undefined;
}

/** How far past `[[` the closing `]]` is looked for, so a long line full of `[[` stays linear. */
const MAX_LINK_CHARS = 400;

/**
 * A markdown-it plugin for VS Code's markdown preview: `[[slug]]`, `[[slug|label]]` and
 * `[[slug#heading]]` become links to the page file, and code citations (`src/a.ts:Foo.bar`,
 * `src/a.ts`) links to the cited file, both relative to the rendered document so the preview
 * opens them in the editor. Labels are text tokens (escaped by the renderer); citations that
 * leave the workspace and anything that is not a valid slug stay as they were.
 */
export function wikiPreviewPlugin(md: MarkdownIt, options?: PreviewLinkOptions): void {
  if (!options) throw new Error('wikiPreviewPlugin needs options.locate');
  md.inline.ruler.before('link', 'repo_wiki_link', (state, silent) => wikiLink(state, silent, options));
  md.core.ruler.after('inline', 'repo_wiki_citations', (state) => {
    const location = options.locate(state.env);
    if (!location) return;
    for (const block of state.tokens) {
      if (block.type === 'inline' && block.children) block.children = linkCitations(block.children, location, state.md, state.Token);
    }
  });
}

function wikiLink(state: StateInline, silent: boolean, options: PreviewLinkOptions): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x5b /* [ */ || src.charCodeAt(pos + 1) !== 0x5b) return false;
  const window = src.slice(pos + 2, pos + 2 + MAX_LINK_CHARS);
  const end = window.indexOf(']]');
  if (end < 0 || /[[\]\n]/.test(window.slice(0, end))) return false;
  const inner = window.slice(0, end);
  const bar = inner.indexOf('|');
  const { slug, heading } = splitLinkTarget(bar < 0 ? inner : inner.slice(0, bar));
  const label = bar < 0 ? undefined : inner.slice(bar + 1).trim();
  if (!isValidSlug(slug)) return false;
  const location = options.locate(state.env);
  if (!location) return false;
  if (!silent) {
    const target = path.posix.join(location.pagesDir, `${slug}.md`);
    const href = relativeHref(location.documentPath, target) + (heading ? `#${headingFragment(heading)}` : '');
    const open = state.push('link_open', 'a', 1);
    open.attrs = [['href', state.md.normalizeLink(href)], ['title', heading ? `Wiki page ${slug}, ${heading}` : `Wiki page ${slug}`], ['class', 'repo-wiki-link']];
    open.markup = 'wikilink';
    const text = state.push('text', '', 0);
    text.content = label || (heading ? `${slug} › ${heading}` : slug);
    state.push('link_close', 'a', -1).markup = 'wikilink';
  }
  state.pos = pos + 2 + end + 2;
  return true;
}

/** Inline code that is a citation, outside any link, wrapped in a link to the cited file. */
function linkCitations(children: Token[], location: PreviewLocation, md: MarkdownIt, TokenClass: new (type: string, tag: string, nesting: Token['nesting']) => Token): Token[] {
  const result: Token[] = [];
  let linkDepth = 0;
  for (const token of children) {
    if (token.type === 'link_open') linkDepth++;
    if (token.type === 'link_close') linkDepth--;
    const citation = token.type === 'code_inline' && linkDepth === 0 ? parseCitationText(token.content) : undefined;
    if (!citation || citation.outside) {
      result.push(token);
      continue;
    }
    const open = new TokenClass('link_open', 'a', 1);
    const what = citation.symbol ? `${citation.symbol} in ${citation.path}` : citation.path;
    open.attrs = [['href', md.normalizeLink(relativeHref(location.documentPath, citation.path))], ['title', `Open ${what}`], ['class', 'repo-wiki-citation']];
    result.push(open, token, new TokenClass('link_close', 'a', -1));
  }
  return result;
}

/** The path from the document's folder to `target` (both workspace-relative), `#` escaped so it stays part of the path. */
function relativeHref(documentPath: string, target: string): string {
  const relative = path.posix.relative(path.posix.dirname(documentPath), target) || path.posix.basename(target);
  return relative.replace(/%/g, '%25').replace(/#/g, '%23');
}

/** A heading's anchor as VS Code's markdown preview (and GitHub) make it: lowercase, spaces to `-`, punctuation dropped. */
export function headingFragment(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[\][!/'"#$%&()*+,./:;<=>?@\\^{|}~`]/g, '')
    .replace(/^-+|-+$/g, '');
}
