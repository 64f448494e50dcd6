import * as path from 'node:path';
import { isFileAccessError, isNotAFile, WikiError, type FileAccessError } from '../errors';
import { appendText, parseLog } from './log';
import type { LintIssue, LogEntry, PageFrontmatter, Topic, WikiIndex, WikiPage } from '../model';
import { indexOutOfDate } from '../lint/indexLint';
import { lintPages } from '../lint/lint';
import { LintCode } from '../lint/lintCodes';
import { issue, MAX_PAGE_BYTES, parsePage, serializePage } from '../pages/page';
import type { Clock, FileSystem } from '../ports';
import { assertSlug, slugify, uniqueSlug } from '../pages/slug';
import { hasConflictMarkers } from '../text/text';
import { buildIndex, parseIndex, renderIndexJson, renderIndexMarkdown, type IndexProblem } from '../index/wikiIndex';

export const WIKI_DIR = '.wiki';

/**
 * Whether a change to `relative` (a path inside `.wiki/`, `/`-separated) can change the wiki's
 * pages, index, log or schema. Local state (`.cache/`, where the write lock is) and the temp
 * files of atomic writes cannot; reacting to them would loop, as the index upkeep that follows
 * every change takes the write lock.
 */
export function isWikiContent(relative: string): boolean {
  const parts = relative.split('/');
  const name = parts[parts.length - 1];
  return parts[0] !== '.cache' && !name.includes('.rwtmp-') && !name.endsWith('.tmp');
}
const TODAY_TOKEN = /\{\{today\}\}/g;
/** SCHEMA.md past this is cut when sent to a model, and lint warns. */
export const MAX_SCHEMA_BYTES = 32 * 1024;
/** The log is read whole (to append after its last line, to show it): a generous cap. */
const MAX_LOG_BYTES = 256 * 1024 * 1024;

/** A file `init` copies into a new `.wiki/`: its path inside `.wiki/` (with `/`) and its text. */
export interface TemplateFile {
  path: string;
  text: string;
}

/** The writes of a wiki made while its write lock is held: handed to the work of Wiki.exclusive. */
export interface WikiWrites {
  writePage(slug: string, frontmatter: PageFrontmatter, body: string, extraFields?: Record<string, unknown>): Promise<string>;
  rebuildIndex(): Promise<{ index: WikiIndex; pages: WikiPage[]; changed: boolean }>;
  /** Writes a page file's text as it is (a rename keeps every byte but the links it moves). */
  writePageText(slug: string, text: string): Promise<string>;
  /** Deletes a page file; false when there was none. */
  removePage(slug: string): Promise<boolean>;
}

export interface NewPage {
  title: string;
  topic?: Topic;
  summary?: string;
  body?: string;
  tags?: string[];
  sources?: string[];
}

/** The `.wiki/` of one workspace folder. All paths it writes are derived from slugs and stay inside it. */
export class Wiki {
  readonly dir: string;
  readonly pagesDir: string;
  readonly indexPath: string;
  readonly indexMarkdownPath: string;
  readonly logPath: string;
  /** The lock every process takes around its writes to this wiki, so none loses another's work. */
  readonly lockPath: string;
  /** The last parse of each page file, reused while its bytes are unchanged. */
  private readonly parsed = new Map<string, { bytes: Uint8Array; page: WikiPage; version?: string }>();

  constructor(
    readonly root: string,
    private readonly fs: FileSystem,
    private readonly clock: Clock,
  ) {
    this.dir = path.join(root, WIKI_DIR);
    this.pagesDir = path.join(this.dir, 'pages');
    this.indexPath = path.join(this.dir, 'index.json');
    this.indexMarkdownPath = path.join(this.dir, 'index.md');
    this.logPath = path.join(this.dir, 'log.jsonl');
    this.lockPath = path.join(this.dir, '.cache', 'write.lock');
  }

  /** Workspace-relative path with forward slashes. */
  relative(absolute: string): string {
    return path.relative(this.root, absolute).split(path.sep).join('/');
  }

  pagePath(slug: string): string {
    assertSlug(slug);
    return path.join(this.pagesDir, `${slug}.md`);
  }

  async exists(): Promise<boolean> {
    return (await this.fs.stat(this.dir))?.isDirectory ?? false;
  }

  /** Writes the template's missing files; an existing wiki (one with index.json) is left untouched. */
  async init(template: readonly TemplateFile[]): Promise<{ created: boolean; files: string[] }> {
    if (await this.fs.stat(this.indexPath)) return { created: false, files: [] };
    await this.fs.mkdir(this.dir);
    return this.exclusive(async (writes) => {
      if (await this.fs.stat(this.indexPath)) return { created: false, files: [] };
      const today = this.today();
      const files: string[] = [];
      for (const file of [...template].sort((a, b) => a.path.localeCompare(b.path))) {
        const target = path.join(this.dir, ...file.path.split('/'));
        await this.fs.mkdir(path.dirname(target), { within: this.dir });
        if (await this.fs.stat(target)) continue;
        await this.fs.writeFileAtomic(target, file.text.replace(TODAY_TOKEN, today), { within: this.dir });
        files.push(this.relative(target));
      }
      const { pages } = await writes.rebuildIndex();
      await this.appendLog({ op: 'init', pages: pages.map((p) => p.slug) });
      return { created: true, files };
    });
  }

  /**
   * Runs `work` holding the wiki's write lock: every multi-file write (ingest, file-back, stamp,
   * lint fixes, index rebuilds) goes through here, so two windows or a window and a terminal
   * never lose each other's pages. The lock is not re-entrant: `work` writes through `writes`.
   */
  exclusive<T>(work: (writes: WikiWrites) => Promise<T>): Promise<T> {
    return this.locked(() => work(this.writes), { logs: true });
  }

  private readonly writes: WikiWrites = {
    writePage: (slug, frontmatter, body, extraFields) => this.writePageUnlocked(slug, frontmatter, body, extraFields),
    rebuildIndex: () => this.rebuildIndexUnlocked(),
    writePageText: async (slug, text) => {
      const absolute = this.pagePath(slug);
      await this.fs.writeFileAtomic(absolute, text, { within: this.dir });
      return absolute;
    },
    removePage: (slug) => this.fs.remove(this.pagePath(slug), { within: this.dir }),
  };

  /** The write lock, with the up-front check of what the work writes (the log only when it appends to it). */
  private locked<T>(work: () => Promise<T>, options: { logs: boolean }): Promise<T> {
    return this.fs.withLock(this.lockPath, async () => {
      await this.assertWritable(options.logs);
      return work();
    });
  }

  /**
   * Refuses up front, before any page is written, when a write of the operation would be refused
   * later: a log or index that is a link or a FIFO, a pages folder that leads out. So a refusal
   * never leaves pages written and their log line missing.
   */
  private async assertWritable(logs: boolean): Promise<void> {
    // Refused when pages/ (or a folder above it) leads out of .wiki/; creates it when missing.
    await this.fs.mkdir(this.pagesDir, { within: this.dir });
    const files = logs ? [this.logPath, this.indexPath, this.indexMarkdownPath] : [this.indexPath, this.indexMarkdownPath];
    for (const file of files) await this.fs.assertWritable(file, { within: this.dir });
  }

  /**
   * Every page; with `mentioning`, only the pages whose text contains one of those strings (or
   * whose own path is one of them), the others left unparsed; with `slugs`, only those pages (the
   * folder is not listed, and a missing one is left out), each parsed again only when its bytes changed.
   */
  async loadPages(options: { mentioning?: readonly string[]; slugs?: readonly string[] } = {}): Promise<WikiPage[]> {
    // A slug never names a path: no separator, so a request cannot reach past pages/.
    const names = options.slugs ? [...new Set(options.slugs)].filter((slug) => !/[\\/]/.test(slug)).map((slug) => `${slug}.md`) : (await this.pagesFolder()).names;
    const wanted = options.mentioning && mentionTest(options.mentioning, (name) => this.relative(path.join(this.pagesDir, name)));
    const pages = await Promise.all(names.map((name) => this.loadEntry(name, wanted)));
    if (!options.slugs) {
      const present = new Set(names);
      for (const name of this.parsed.keys()) if (!present.has(name)) this.parsed.delete(name);
    }
    return pages.filter((page): page is WikiPage => page !== undefined);
  }

  private async loadEntry(name: string, wanted?: (name: string, bytes: Uint8Array) => boolean): Promise<WikiPage | undefined> {
    if (name.startsWith('.') || !name.endsWith('.md')) return undefined;
    const absolute = path.join(this.pagesDir, name);
    const previous = this.parsed.get(name);
    // A page read before, still at that version, is not read again: a save re-checks every page citing the file, and one file can have hundreds.
    if (previous?.version !== undefined && (await this.fs.stat(absolute))?.version === previous.version) {
      return wanted && !wanted(name, previous.bytes) ? undefined : previous.page;
    }
    let read: { bytes: Uint8Array; version?: string };
    try {
      // No stat first: a folder or a page deleted since the listing fails the read, and pages are many.
      read = await this.fs.readVersioned(absolute, { within: this.dir, maxBytes: MAX_PAGE_BYTES });
    } catch (error) {
      if (isNotAFile(error)) return undefined;
      if (isFileAccessError(error)) return this.refusedPage(name.slice(0, -3), absolute, error);
      throw error;
    }
    const { bytes, version } = read;
    if (wanted && !wanted(name, bytes)) return undefined;
    // Most loads follow a change to one page: the others parse to what they parsed to last time.
    if (previous && sameBytes(previous.bytes, bytes)) {
      previous.version = version;
      return previous.page;
    }
    const page = parsePage(this.relative(absolute), name.slice(0, -3), bytes);
    this.parsed.set(name, { bytes, page, version });
    return page;
  }

  async readPage(slug: string): Promise<WikiPage | undefined> {
    const absolute = this.pagePath(slug);
    try {
      return parsePage(this.relative(absolute), slug, await this.fs.readFile(absolute, { within: this.dir, maxBytes: MAX_PAGE_BYTES }));
    } catch (error) {
      if (isNotAFile(error)) return undefined;
      if (isFileAccessError(error)) return this.refusedPage(slug, absolute, error);
      throw error;
    }
  }

  /** A page the file-access module refused: kept out of the index, retrieval and prompts, and reported by lint. */
  private refusedPage(slug: string, absolute: string, error: FileAccessError): WikiPage {
    const page = parsePage(this.relative(absolute), slug, new Uint8Array());
    const code = error.reason === 'too-large' ? LintCode.PageTooLarge : error.reason === 'not-regular' ? LintCode.PageNotRegular : LintCode.PageOutsideWiki;
    return { ...page, readable: false, valid: false, problems: [issue(code, error.message, page.relPath, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } })] };
  }

  /** The page file names, or the lint issue when `pages/` itself cannot be listed safely (a link out). */
  private async pagesFolder(): Promise<{ names: string[]; problem?: LintIssue }> {
    if (!(await this.fs.stat(this.pagesDir))) return { names: [] };
    try {
      return { names: (await this.fs.readdir(this.pagesDir, { within: this.dir })).sort() };
    } catch (error) {
      if (!isFileAccessError(error)) throw error;
      const relPath = this.relative(this.pagesDir);
      return { names: [], problem: issue(LintCode.PageOutsideWiki, `${error.message} No page in it is read.`, relPath, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }) };
    }
  }

  /** Problems of the wiki as a whole: a pages folder that leads out, an oversized SCHEMA.md. */
  async wikiProblems(): Promise<LintIssue[]> {
    const problems: LintIssue[] = [];
    const { problem } = await this.pagesFolder();
    if (problem) problems.push(problem);
    const schema = await this.fs.stat(this.schemaPath);
    if (schema && schema.size > MAX_SCHEMA_BYTES) {
      problems.push(issue(LintCode.SchemaTooLarge, `SCHEMA.md is ${Math.round(schema.size / 1024)} KB; only its first ${MAX_SCHEMA_BYTES / 1024} KB are sent to the model.`, this.relative(this.schemaPath), { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }));
    }
    return problems;
  }

  get schemaPath(): string {
    return path.join(this.dir, 'SCHEMA.md');
  }

  /** SCHEMA.md, the conventions the librarian follows (its first 32 KB), or undefined when the wiki has none. */
  async readSchema(): Promise<string | undefined> {
    return this.readText(this.schemaPath, { maxBytes: MAX_SCHEMA_BYTES, truncate: true });
  }

  /** The page file's text as it is on disk, or undefined when there is no such page. */
  async readPageText(slug: string): Promise<string | undefined> {
    return this.readText(this.pagePath(slug));
  }

  writePage(slug: string, frontmatter: PageFrontmatter, body: string, extraFields?: Record<string, unknown>): Promise<string> {
    return this.locked(() => this.writePageUnlocked(slug, frontmatter, body, extraFields), { logs: false });
  }

  private async writePageUnlocked(slug: string, frontmatter: PageFrontmatter, body: string, extraFields?: Record<string, unknown>): Promise<string> {
    const absolute = this.pagePath(slug);
    await this.fs.mkdir(this.pagesDir, { within: this.dir });
    await this.fs.writeFileAtomic(absolute, serializePage(frontmatter, body, extraFields), { within: this.dir });
    return absolute;
  }

  /** Creates a page under a slug derived from its title, suffixed when that slug is taken. */
  createPage(input: NewPage): Promise<{ slug: string; path: string }> {
    return this.exclusive((writes) => this.createPageLocked(writes, input));
  }

  private async createPageLocked(writes: WikiWrites, input: NewPage): Promise<{ slug: string; path: string }> {
    const taken = new Set((await this.loadPages()).map((page) => page.slug));
    const slug = uniqueSlug(slugify(input.title), taken);
    const today = this.today();
    const frontmatter: PageFrontmatter = {
      title: input.title.trim(),
      topic: input.topic ?? 'other',
      summary: input.summary?.trim() || input.title.trim(),
      status: 'active',
      tags: input.tags ?? [],
      created: today,
      updated: today,
      corroborations: 0,
      sources: input.sources ?? [],
      anchors: {},
    };
    const file = await writes.writePage(slug, frontmatter, input.body ?? `# ${frontmatter.title}\n`);
    await writes.rebuildIndex();
    await this.appendLog({ op: 'new-page', pages: [slug] });
    return { slug, path: file };
  }

  /**
   * Regenerates index.json and index.md from the pages on disk, read under the write lock, so a
   * page another process just wrote is never left out; files are only rewritten when they differ.
   */
  rebuildIndex(): Promise<{ index: WikiIndex; pages: WikiPage[]; changed: boolean }> {
    return this.locked(() => this.rebuildIndexUnlocked(), { logs: false });
  }

  private async rebuildIndexUnlocked(): Promise<{ index: WikiIndex; pages: WikiPage[]; changed: boolean }> {
    const pages = await this.loadPages();
    const index = buildIndex(pages);
    const [changedJson, changedMarkdown] = await Promise.all([
      this.writeIfChanged(this.indexPath, renderIndexJson(index)),
      this.writeIfChanged(this.indexMarkdownPath, renderIndexMarkdown(index)),
    ]);
    return { index, pages, changed: changedJson || changedMarkdown };
  }

  /** The index, regenerated first when it is missing, unparsable or either file has merge conflict markers. */
  async loadIndex(): Promise<{ index: WikiIndex; repaired?: IndexProblem }> {
    const parsed = parseIndex(await this.readText(this.indexPath));
    if ('index' in parsed && hasConflictMarkers((await this.readText(this.indexMarkdownPath)) ?? '')) {
      return { index: (await this.rebuildIndex()).index, repaired: 'conflict' };
    }
    if ('index' in parsed) return { index: parsed.index };
    const { index } = await this.rebuildIndex();
    return { index, repaired: parsed.problem };
  }

  /** Which of the generated index files hold merge conflict markers (workspace-relative). */
  async conflictedIndexFiles(): Promise<string[]> {
    const files: string[] = [];
    for (const file of [this.indexPath, this.indexMarkdownPath]) {
      if (hasConflictMarkers((await this.readText(file)) ?? '')) files.push(this.relative(file));
    }
    return files;
  }

  async appendLog(entry: Omit<LogEntry, 'ts'>): Promise<void> {
    const existing = (await this.readText(this.logPath, { maxBytes: MAX_LOG_BYTES })) ?? '';
    const full = { ts: this.clock.now().toISOString(), ...entry } as LogEntry;
    await this.fs.appendFile(this.logPath, appendText(existing.slice(-1), full), { within: this.dir });
  }

  async readLog(): Promise<{ entries: LogEntry[]; skipped: number; text: string }> {
    const text = (await this.readText(this.logPath, { maxBytes: MAX_LOG_BYTES })) ?? '';
    return { ...parseLog(text), text };
  }

  async lint(): Promise<{ pages: WikiPage[]; issues: LintIssue[] }> {
    const pages = await this.loadPages();
    const problems = await this.wikiProblems();
    // A pages folder that leads out is never read, so no rebuild could list its pages: that problem says it all.
    const refused = problems.some((problem) => problem.code === LintCode.PageOutsideWiki);
    return { pages, issues: [...problems, ...(refused ? [] : await this.indexProblems(pages)), ...lintPages(pages)] };
  }

  /** `index-out-of-date` for each generated index file that differs from a rebuild from `pages`. */
  async indexProblems(pages: readonly WikiPage[]): Promise<LintIssue[]> {
    const file = async (absolute: string) => ({ path: this.relative(absolute), text: await this.readText(absolute) });
    return indexOutOfDate(pages, { json: await file(this.indexPath), markdown: await file(this.indexMarkdownPath) });
  }

  /** A wiki file's text, or undefined when it does not exist; a refused file (a link out, a FIFO) throws. */
  private async readText(file: string, options: { maxBytes?: number; truncate?: boolean } = {}): Promise<string | undefined> {
    try {
      return new TextDecoder().decode(await this.fs.readFile(file, { within: this.dir, ...options }));
    } catch (error) {
      if (isNotAFile(error)) return undefined;
      throw error;
    }
  }

  private async writeIfChanged(file: string, text: string): Promise<boolean> {
    if ((await this.readText(file)) === text) return false;
    if (!(await this.exists())) {
      throw new WikiError('no-wiki', `There is no ${WIKI_DIR}/ folder in ${this.root}.`, 'Run "Repo Wiki: Initialise wiki in this workspace" first.');
    }
    // The index is derived from the pages, and rebuilt whenever it is damaged: no fsync needed.
    await this.fs.writeFileAtomic(file, text, { durable: false, within: this.dir });
    return true;
  }

  private today(): string {
    return this.clock.now().toISOString().slice(0, 10);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether a page file (by name and bytes) mentions one of `strings`, or is itself one of them. */
function mentionTest(strings: readonly string[], relPathOf: (name: string) => string): (name: string, bytes: Uint8Array) => boolean {
  const named = new Set(strings);
  const decoder = new TextDecoder();
  return (name, bytes) => {
    if (named.has(relPathOf(name))) return true;
    const text = decoder.decode(bytes);
    return strings.some((needle) => text.includes(needle));
  };
}
