import * as path from 'node:path';
import * as vscode from 'vscode';
import { PageLanguageService, type PageDocument } from '../../core/authoring';
import type { SourceSymbol } from '../../core/drift/symbols';
import { DRIFT_CODES } from '../../core/drift/driftCodes';
import { isFileAccessError, isNotAFile } from '../../core/errors';
import type { Range } from '../../core/model';
import type { Wiki } from '../../core/wiki/wiki';
import { DIAGNOSTIC_SOURCE } from '../common/diagnostics';
import type { Services } from '../services/services';

export const PAGE_SELECTOR: vscode.DocumentSelector = { language: 'markdown', scheme: 'file', pattern: '**/.wiki/pages/*.md' };

/** Files the citation completion never offers. */
const EXCLUDE = '**/{node_modules,.git,.wiki,dist,out,build,coverage,.vscode-test}/**';
const MAX_LISTED_FILES = 20000;
/** A cited file larger than this is not read for symbols or hover code. */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
const DRIFT = new Set<string>(DRIFT_CODES);

/** The wiki and slug of a page file, or undefined when the URI is not a page. */
export function pageIn(services: Pick<Services, 'wikis'>, uri: vscode.Uri): { wiki: Wiki; slug: string } | undefined {
  const wiki = uri.scheme === 'file' ? services.wikis.forUri(uri) : undefined;
  if (!wiki || path.dirname(uri.fsPath) !== wiki.pagesDir || !uri.fsPath.endsWith('.md')) return undefined;
  return { wiki, slug: path.basename(uri.fsPath, '.md') };
}

export function pageDocument(wiki: Wiki, slug: string, document: vscode.TextDocument): PageDocument {
  return { slug, relPath: wiki.relative(document.uri.fsPath), text: document.getText() };
}

export function toRange(range: Range): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

export function uriOf(wiki: Wiki, relPath: string): vscode.Uri {
  return vscode.Uri.file(path.join(wiki.root, relPath));
}

/**
 * One PageLanguageService per wiki, over the window's shared state: pages from the snapshots,
 * workspace files listed by VS Code and read through the folder's guarded file access, symbols
 * parsed in the drift worker, drift from the published diagnostics, ages from git.
 */
export class WikiLanguage implements vscode.Disposable {
  private readonly services = new Map<string, PageLanguageService>();
  private readonly listings = new Map<string, Promise<string[]>>();
  private readonly symbolCache = new Map<string, { text: string; symbols: Promise<readonly SourceSymbol[]> }>();
  private readonly watcher = vscode.workspace.createFileSystemWatcher('**/*');
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly shared: Services) {
    const listChanged = () => this.listings.clear();
    this.disposables = [
      this.watcher,
      this.watcher.onDidCreate(listChanged),
      this.watcher.onDidDelete((uri) => {
        listChanged();
        this.symbolCache.delete(uri.fsPath);
      }),
    ];
  }

  of(wiki: Wiki): PageLanguageService {
    let service = this.services.get(wiki.root);
    if (!service) {
      const { shared } = this;
      const files = shared.wikis.filesOf(wiki);
      service = new PageLanguageService({
        pages: { pages: async () => (await shared.snapshots.get(wiki)).pages },
        files: {
          list: () => this.list(wiki),
          read: async (relPath) => {
            try {
              const bytes = await files.readFile(path.join(wiki.root, relPath), { maxBytes: MAX_SOURCE_BYTES });
              return bytes.subarray(0, 8192).includes(0) ? undefined : new TextDecoder().decode(bytes);
            } catch (error) {
              // Missing, or refused by the guarded access (a link out, a secret, too large): nothing to show.
              if (isNotAFile(error) || isFileAccessError(error)) return undefined;
              throw error;
            }
          },
        },
        symbols: { symbolsOf: (relPath, text) => this.symbolsOf(wiki, relPath, text) },
        drift: {
          issueAt: async (pageRelPath, range) => {
            const diagnostic = vscode.languages.getDiagnostics(uriOf(wiki, pageRelPath)).find((d) =>
              d.source === DIAGNOSTIC_SOURCE && DRIFT.has(String(d.code)) && d.range.start.line === range.start.line && d.range.start.character === range.start.character);
            return diagnostic && { code: String(diagnostic.code), message: diagnostic.message };
          },
        },
        ages: { ageOf: async (slug) => (await shared.ages.tags(wiki, [{ slug, frontmatter: {} }])).get(slug) },
        clock: { now: () => new Date() },
      });
      this.services.set(wiki.root, service);
    }
    return service;
  }

  /** The page service for a page document, with the document as the service reads it. */
  forDocument(document: vscode.TextDocument): { service: PageLanguageService; wiki: Wiki; page: PageDocument } | undefined {
    const page = pageIn(this.shared, document.uri);
    if (!page) return undefined;
    return { service: this.of(page.wiki), wiki: page.wiki, page: pageDocument(page.wiki, page.slug, document) };
  }

  private list(wiki: Wiki): Promise<string[]> {
    let listing = this.listings.get(wiki.root);
    if (!listing) {
      const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(wiki.root));
      listing = folder
        ? Promise.resolve(vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/*'), EXCLUDE, MAX_LISTED_FILES))
          .then((uris) => uris.map((uri) => wiki.relative(uri.fsPath)).sort())
        : Promise.resolve([]);
      this.listings.set(wiki.root, listing);
    }
    return listing;
  }

  /** Declarations from the drift worker's parser, kept while the file's text is the same. */
  private symbolsOf(wiki: Wiki, relPath: string, text: string): Promise<readonly SourceSymbol[]> {
    const key = path.join(wiki.root, relPath);
    const cached = this.symbolCache.get(key);
    if (cached?.text === text) return cached.symbols;
    const symbols = this.shared.cores.of(wiki).drift.symbolsOf(relPath, text);
    this.symbolCache.set(key, { text, symbols });
    symbols.catch(() => this.symbolCache.delete(key));
    return symbols;
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}
