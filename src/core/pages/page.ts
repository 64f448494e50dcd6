import matter from 'gray-matter';
import { FIELD_ORDER, serializeFrontmatter, validateFrontmatter } from './frontmatter';
import { DEFAULT_SEVERITY, LintCode } from '../lint/lintCodes';
import { parseLinks } from './markdown';
import type { LintIssue, PageFrontmatter, Range, WikiPage } from '../model';
import { slugProblem } from './slug';
import { lineRange } from '../text/text';

/** Pages above this size are reported, not parsed: a wiki page is prose, not a data dump. */
export const MAX_PAGE_BYTES = 1024 * 1024;

/** Parses one page file; never throws: every problem becomes a LintIssue on the page. */
export function parsePage(relPath: string, slug: string, bytes: Uint8Array): WikiPage {
  const page: WikiPage = {
    slug, relPath, frontmatter: {}, extraFields: {}, readable: false, valid: false, body: '', bodyStartLine: 0, links: [], fieldLines: {}, problems: [],
  };
  const report = (code: LintCode, message: string, range: Range = lineRange(0)) =>
    page.problems.push(issue(code, message, relPath, range));

  const slugIssue = slugProblem(slug);
  if (slugIssue) report(LintCode.InvalidSlug, `File name "${slug}.md" is not a valid slug: ${slugIssue}.`);
  if (bytes.byteLength > MAX_PAGE_BYTES) {
    report(LintCode.PageTooLarge, `Page is ${(bytes.byteLength / 1048576).toFixed(1)} MB; pages over 1 MB are not read. Split it or move the data out of .wiki/pages/.`);
    return page;
  }
  if (bytes.subarray(0, 8192).includes(0)) {
    report(LintCode.PageBinary, 'This looks like a binary file, not a markdown page. Move it out of .wiki/pages/.');
    return page;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    report(LintCode.PageEncoding, 'Page is not valid UTF-8. Re-save it with UTF-8 encoding.');
    return page;
  }
  text = text.replace(/\r\n?/g, '\n');
  page.readable = true;

  if (!text.startsWith('---\n') && text !== '---') {
    report(LintCode.FrontmatterMissing, 'Page has no YAML frontmatter. Add a block between --- lines with title, topic, summary, status, created and updated.');
    page.body = text;
    page.links = parseLinks(text, 0);
    return page;
  }

  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(text, {});
  } catch (error) {
    const mark = (error as { mark?: { line?: number } }).mark;
    const line = typeof mark?.line === 'number' ? mark.line + 1 : 0;
    const reason = (error as { reason?: string }).reason ?? String((error as Error).message).split('\n')[0];
    report(LintCode.FrontmatterYaml, `Frontmatter is not valid YAML: ${reason}.`, lineRange(line, 1000));
    return page;
  }

  page.body = parsed.content;
  page.bodyStartLine = countLines(text.slice(0, text.length - parsed.content.length));
  page.links = parseLinks(page.body, page.bodyStartLine);
  page.fieldLines = frontmatterKeyLines(text, page.bodyStartLine);

  const data = parsed.data as Record<string, unknown>;
  const { frontmatter, problems } = validateFrontmatter(data);
  page.frontmatter = frontmatter;
  page.extraFields = Object.fromEntries(Object.entries(data).filter(([key]) => !(FIELD_ORDER as readonly string[]).includes(key)));
  for (const problem of problems) {
    report(problem.code, problem.message, lineRange(page.fieldLines[problem.field] ?? 0, 1000));
  }
  page.valid = page.problems.length === 0;
  return page;
}

export function serializePage(frontmatter: PageFrontmatter, body: string, extraFields: Record<string, unknown> = {}): string {
  const extras = Object.keys(extraFields).length ? yamlBlock(extraFields) : '';
  return `---\n${serializeFrontmatter(frontmatter)}${extras}---\n${body.endsWith('\n') || !body ? body : `${body}\n`}`;
}

/** Keys outside the schema are written back with the YAML library, whatever shape they have. */
export function yamlBlock(data: Record<string, unknown>): string {
  return matter.stringify('', data).replace(/^---\n/, '').replace(/---\n*$/, '');
}

export function issue(code: LintCode, message: string, page: string, range: Range, data?: Record<string, string>): LintIssue {
  return { code, severity: DEFAULT_SEVERITY[code], message, page, range, ...(data ? { data } : {}) };
}

function countLines(text: string): number {
  let lines = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lines++;
  return lines;
}

/** Top-level keys of the frontmatter block and the 0-based line each starts on. */
function frontmatterKeyLines(text: string, bodyStartLine: number): Record<string, number> {
  const lines: Record<string, number> = {};
  text.split('\n', bodyStartLine).forEach((line, index) => {
    const key = /^([A-Za-z_][\w-]*):/.exec(line)?.[1];
    if (key && !(key in lines)) lines[key] = index;
  });
  return lines;
}
