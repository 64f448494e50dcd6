/**
 * Markdown for the chat view: model output and wiki text are untrusted, so raw HTML is never
 * rendered, no element gets an `href`, `src` or `style`, and only two kinds of link act:
 * `[[slug]]` wiki links (`.page-link`, `data-slug`) and code citations in inline code
 * (`.code-link`, `data-citation`). Everything else a link could be is shown as inert text.
 *
 * Pure: a string in, an HTML string out; no DOM, so it runs (and is tested) in Node too.
 */
import MarkdownIt from 'markdown-it';
import { parseCitationText } from '../shared/citationSyntax';

export interface RenderOptions {
  /** Slugs of pages known to be stale: their links get the `stale` class. */
  stale?: ReadonlySet<string>;
  /** Code citations the model never read and that do not resolve: shown marked, not as links. */
  unverified?: ReadonlySet<string>;
}

interface Env {
  [key: PropertyKey]: unknown;
  stale?: ReadonlySet<string>;
  unverified?: ReadonlySet<string>;
}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_SLUG = 80;
const MAX_CITATION = 500;

/** Whether `value` is a wiki page slug the host accepts in `openPage`. */
export function isSlug(value: string): boolean {
  return value.length <= MAX_SLUG && SLUG.test(value);
}

/** `[[slug]]` or `[[slug|label]]` (the text between the brackets), or undefined when it is not a wiki link. */
export function parseWikiLink(inner: string): { slug: string; label?: string } | undefined {
  const bar = inner.indexOf('|');
  const slug = (bar < 0 ? inner : inner.slice(0, bar)).trim();
  if (!isSlug(slug)) return undefined;
  const label = bar < 0 ? undefined : inner.slice(bar + 1).trim();
  if (label !== undefined && /[[\]\n]/.test(label)) return undefined;
  return label ? { slug, label } : { slug };
}

/**
 * The citation to send in `openCitation` when inline code looks like one (`src/a.ts:Foo.bar`,
 * `src/a.ts`, `package.json`), else undefined. Paths outside the workspace are not offered; the
 * host checks again whatever arrives.
 */
export function codeCitation(raw: string): string | undefined {
  if (raw.length > MAX_CITATION) return undefined;
  const citation = parseCitationText(raw);
  return citation && !citation.outside ? citation.text : undefined;
}

const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false, breaks: false });
const { escapeHtml } = md.utils;

// `[[slug]]` / `[[slug|label]]`, tried before ordinary links. The closing `]]` is only looked for
// close by, so a long answer full of `[[` stays linear.
md.inline.ruler.before('link', 'wikilink', (state, silent) => {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x5b /* [ */ || src.charCodeAt(pos + 1) !== 0x5b) return false;
  const window = src.slice(pos + 2, pos + 2 + MAX_SLUG + 210);
  const end = window.indexOf(']]');
  if (end < 0) return false;
  const link = parseWikiLink(window.slice(0, end));
  if (!link) return false;
  if (!silent) {
    const token = state.push('wikilink', '', 0);
    token.meta = link;
  }
  state.pos = pos + 2 + end + 2;
  return true;
});

// Table alignment comes as `style` attributes, which the view's CSP refuses: use classes instead.
md.core.ruler.push('align_classes', (state) => {
  for (const token of state.tokens) {
    if ((token.type !== 'th_open' && token.type !== 'td_open') || !token.attrs) continue;
    const align = /text-align:(left|right|center)/.exec(String(token.attrGet('style') ?? ''))?.[1];
    token.attrs = align ? [['class', `align-${align}`]] : null;
  }
});

const rules = md.renderer.rules;

rules.wikilink = (tokens, idx, _options, env?: Env) => {
  const { slug, label } = tokens[idx].meta as { slug: string; label?: string };
  const stale = env?.stale?.has(slug);
  const title = stale ? `Open wiki page ${slug} (stale)` : `Open wiki page ${slug}`;
  return `<button type="button" class="page-link${stale ? ' stale' : ''}" data-slug="${slug}" title="${escapeHtml(title)}">${escapeHtml(label ?? slug)}</button>`;
};

rules.code_inline = (tokens, idx, _options, env?: Env) => {
  const content = tokens[idx].content;
  const citation = codeCitation(content);
  if (!citation) return `<code>${escapeHtml(content)}</code>`;
  if (env?.unverified?.has(citation)) {
    const title = `Unverified: the model did not read ${citation}, and it does not resolve to any code now.`;
    return `<span class="code-unverified" title="${escapeHtml(title)}"><code>${escapeHtml(content)}</code><span class="unverified-mark" aria-label="unverified">?</span></span>`;
  }
  return `<button type="button" class="code-link" data-citation="${escapeHtml(citation)}" title="${escapeHtml(`Open ${citation}`)}"><code>${escapeHtml(content)}</code></button>`;
};

function codeBlock(content: string, info: string): string {
  const lang = /^[\w+#.-]{1,40}$/.exec(info.trim().split(/\s+/)[0] ?? '')?.[0];
  const label = lang ? `<span class="code-lang">${escapeHtml(lang)}</span>` : '';
  const cls = lang ? ` class="language-${escapeHtml(lang)}"` : '';
  return `<div class="code-block">${label}<button type="button" class="copy-code codicon codicon-copy" aria-label="Copy code" title="Copy code"></button><pre><code${cls}>${escapeHtml(content)}</code></pre></div>\n`;
}

rules.fence = (tokens, idx) => codeBlock(tokens[idx].content, tokens[idx].info);
rules.code_block = (tokens, idx) => codeBlock(tokens[idx].content, '');

// Links open nothing: the label is shown, and for http(s) the address too, as text.
rules.link_open = (tokens, idx) => {
  const href = String(tokens[idx].attrGet('href') ?? '');
  const url = /^https?:\/\//i.test(href) ? md.normalizeLinkText(href) : undefined;
  let depth = 0;
  let label = '';
  for (let i = idx + 1; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === 'link_open') depth++;
    if (token.type === 'link_close' && depth-- === 0) {
      token.meta = { url: url && label.trim() !== url ? url : undefined };
      break;
    }
    if (token.type === 'text' || token.type === 'code_inline') label += token.content;
  }
  return url ? `<span class="ext-link" title="${escapeHtml(url)}">` : '<span class="ext-link">';
};

rules.link_close = (tokens, idx) => {
  const url = (tokens[idx].meta as { url?: string } | null)?.url;
  return url ? `</span> <span class="link-url">(${escapeHtml(url)})</span>` : '</span>';
};

// Images never load (the CSP would refuse them anyway): their alt text stands in.
rules.image = (tokens, idx, options, env, self) => {
  const alt = self.renderInlineAsText(tokens[idx].children ?? [], options, env);
  return `<span class="md-image">[image${alt ? `: ${escapeHtml(alt)}` : ''}]</span>`;
};

// With html: false these never occur; should they, they are text.
rules.html_block = (tokens, idx) => `<p>${escapeHtml(tokens[idx].content)}</p>\n`;
rules.html_inline = (tokens, idx) => escapeHtml(tokens[idx].content);

/** Renders untrusted markdown to HTML that is safe to assign to `innerHTML`. */
export function renderMarkdown(text: string, options: RenderOptions = {}): string {
  const env: Env = { stale: options.stale, unverified: options.unverified };
  return md.render(text, env);
}

/**
 * Where a streaming answer can be cut so that the part before renders the same on its own: the
 * start of the last line that follows a blank line, begins a new block at column 0 and lies
 * outside any fenced code block (the last line counts even while it still grows). Scans from `from` (itself such a point); returns `from` when
 * there is none yet. Lets the view render finished blocks once and re-render only the tail.
 */
export function stableBoundary(text: string, from = 0): number {
  let fence: { char: string; length: number } | undefined;
  let boundary = from;
  let previousBlank = false;
  let lineStart = from;
  for (;;) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === fence.char && close[1].length >= fence.length) fence = undefined;
      previousBlank = false;
    } else {
      if (previousBlank && /^[^\s]/.test(line)) boundary = lineStart;
      const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (open && !(open[1][0] === '`' && line.slice(open.index + open[0].length).includes('`'))) fence = { char: open[1][0], length: open[1].length };
      previousBlank = !fence && line.trim() === '';
    }
    if (newline < 0) break; // the last line may still grow; only its start mattered
    lineStart = lineEnd + 1;
  }
  return boundary;
}
