import * as path from 'node:path';
import { isNotAFile, WikiError } from './errors';
import { appendText, parseLog } from './log';
import type { LintIssue, LogEntry, PageFrontmatter, Topic, WikiIndex, WikiPage } from './model';
import { lintPages } from './lint';
import { parsePage, serializePage } from './page';
import type { Clock, FileSystem } from './ports';
import { assertSlug, slugify, uniqueSlug } from './slug';
import { hasConflictMarkers } from './text';
import { buildIndex, parseIndex, renderIndexJson, renderIndexMarkdown, type IndexProblem } from './wikiIndex';

export const WIKI_DIR = '.wiki';
const TODAY_TOKEN = /\{\{today\}\}/g;

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
  /** The last parse of each page file, reused while its bytes are unchanged. */
  private readonly parsed = new Map<string, { bytes: Uint8Array; page: WikiPage }>();

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

  /** Copies the template's missing files; an existing wiki (one with index.json) is left untouched. */
  async init(templateDir: string): Promise<{ created: boolean; files: string[] }> {
    if (await this.fs.stat(this.indexPath)) return { created: false, files: [] };
    const today = this.today();
    const files: string[] = [];
    const copy = async (from: string, to: string): Promise<void> => {
      await this.fs.mkdir(to);
      for (const name of (await this.fs.readdir(from)).sort()) {
        const source = path.join(from, name);
        const target = path.join(to, name);
        if ((await this.fs.stat(source))?.isDirectory) await copy(source, target);
        else if (!(await this.fs.stat(target))) {
          const text = new TextDecoder().decode(await this.fs.readFile(source));
          await this.fs.writeFileAtomic(target, text.replace(TODAY_TOKEN, today));
          files.push(this.relative(target));
        }
      }
    };
    await copy(templateDir, this.dir);
    const { pages } = await this.rebuildIndex();
    await this.appendLog({ op: 'init', pages: pages.map((p) => p.slug) });
    return { created: true, files };
  }

  async loadPages(): Promise<WikiPage[]> {
    const names = (await this.fs.stat(this.pagesDir)) ? (await this.fs.readdir(this.pagesDir)).sort() : [];
    const pages = await Promise.all(names.map((name) => this.loadEntry(name)));
    const present = new Set(names);
    for (const name of this.parsed.keys()) if (!present.has(name)) this.parsed.delete(name);
    return pages.filter((page): page is WikiPage => page !== undefined);
  }

  private async loadEntry(name: string): Promise<WikiPage | undefined> {
    if (name.startsWith('.') || !name.endsWith('.md')) return undefined;
    const absolute = path.join(this.pagesDir, name);
    let bytes: Uint8Array;
    try {
      // No stat first: a folder or a page deleted since the listing fails the read, and pages are many.
      bytes = await this.fs.readFile(absolute);
    } catch (error) {
      if (isNotAFile(error)) return undefined;
      throw error;
    }
    // Most loads follow a change to one page: the others parse to what they parsed to last time.
    const previous = this.parsed.get(name);
    if (previous && sameBytes(previous.bytes, bytes)) return previous.page;
    const page = parsePage(this.relative(absolute), name.slice(0, -3), bytes);
    this.parsed.set(name, { bytes, page });
    return page;
  }

  async readPage(slug: string): Promise<WikiPage | undefined> {
    const absolute = this.pagePath(slug);
    if (!(await this.fs.stat(absolute))) return undefined;
    return parsePage(this.relative(absolute), slug, await this.fs.readFile(absolute));
  }

  /** SCHEMA.md, the conventions the librarian follows, or undefined when the wiki has none. */
  async readSchema(): Promise<string | undefined> {
    return this.readText(path.join(this.dir, 'SCHEMA.md'));
  }

  /** The page file's text as it is on disk, or undefined when there is no such page. */
  async readPageText(slug: string): Promise<string | undefined> {
    return this.readText(this.pagePath(slug));
  }

  async writePage(slug: string, frontmatter: PageFrontmatter, body: string, extraFields?: Record<string, unknown>): Promise<string> {
    const absolute = this.pagePath(slug);
    await this.fs.mkdir(this.pagesDir);
    await this.fs.writeFileAtomic(absolute, serializePage(frontmatter, body, extraFields));
    return absolute;
  }

  /** Creates a page under a slug derived from its title, suffixed when that slug is taken. */
  async createPage(input: NewPage): Promise<{ slug: string; path: string }> {
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
    const file = await this.writePage(slug, frontmatter, input.body ?? `# ${frontmatter.title}\n`);
    await this.rebuildIndex();
    await this.appendLog({ op: 'new-page', pages: [slug] });
    return { slug, path: file };
  }

  /** Regenerates index.json and index.md from the pages; files are only rewritten when they differ. */
  async rebuildIndex(loaded?: WikiPage[]): Promise<{ index: WikiIndex; pages: WikiPage[]; changed: boolean }> {
    const pages = loaded ?? (await this.loadPages());
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

  async appendLog(entry: Omit<LogEntry, 'ts'>): Promise<void> {
    const existing = (await this.readText(this.logPath)) ?? '';
    const full = { ts: this.clock.now().toISOString(), ...entry } as LogEntry;
    await this.fs.appendFile(this.logPath, appendText(existing.slice(-1), full));
  }

  async readLog(): Promise<{ entries: LogEntry[]; skipped: number; text: string }> {
    const text = (await this.readText(this.logPath)) ?? '';
    return { ...parseLog(text), text };
  }

  async lint(): Promise<{ pages: WikiPage[]; issues: LintIssue[] }> {
    const pages = await this.loadPages();
    return { pages, issues: lintPages(pages) };
  }

  private async readText(file: string): Promise<string | undefined> {
    if (!(await this.fs.stat(file))) return undefined;
    return new TextDecoder().decode(await this.fs.readFile(file));
  }

  private async writeIfChanged(file: string, text: string): Promise<boolean> {
    if ((await this.readText(file)) === text) return false;
    if (!(await this.exists())) {
      throw new WikiError('no-wiki', `There is no ${WIKI_DIR}/ folder in ${this.root}.`, 'Run "Repo Wiki: Initialise wiki in this workspace" first.');
    }
    // The index is derived from the pages, and rebuilt whenever it is damaged: no fsync needed.
    await this.fs.writeFileAtomic(file, text, { durable: false });
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
