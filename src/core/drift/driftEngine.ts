import * as path from 'node:path';
import { FileAccessError, isFileAccessError, isNotAFile, isStackOverflow } from '../errors';
import { nextTurn, turnDue } from '../eventLoopTurns';
import { isArchived, type LintIssue, type WikiPage } from '../model';
import type { FileSystem } from '../ports';
import { citationsOf, SYMBOL_FILE, TS_LIKE, type Citation } from './citations';
import { reExportersOf } from './barrels';
import { CitedParts, isPartCitation } from './citedParts';
import { DEFAULT_DRIFT_SEVERITY, DriftCode, unverifiedMessage } from './driftCodes';
import { moduleCandidates } from './modules';
import { answersWanted, CONTAINER_KINDS, containerShape, fileAnchor, hex8, parseAnchor, symbolAnchor, type FileSymbols, type ParsedAnchor, type ParseThreads, type ReExport, type SourceSymbol, type SymbolParser, type TypeFingerprints, type WantedSymbols } from './symbols';

/** Finds workspace files that might declare a symbol, for `moved-symbol`. Paths are workspace-relative. */
export interface SymbolSearch {
  /** The files that contain a word (any of several); with `only`, among those it accepts (one language's), so no other file is read. */
  filesContaining(words: string | readonly string[], only?: (file: string) => boolean): Promise<string[]>;
  /** The files directly in a folder (workspace-relative), where a renamed file would be. */
  filesIn?(folder: string): Promise<string[]>;
}

export interface DriftIssue extends LintIssue {
  code: DriftCode;
  /** `anchor`: the fingerprint the citation would be stamped with now (of `renamedTo` for a rename). */
  /** `relocatedTo`: the citation where the cited lines are now (a line range found again by content). */
  data: { citation: string; path: string; symbol?: string; movedTo?: string; renamedTo?: string; anchor?: string; relocatedTo?: string };
}

export interface DriftReport {
  pagesChecked: number;
  citationsChecked: number;
  issues: DriftIssue[];
}

export interface CancellationFlag {
  readonly cancelled: boolean;
}

/** What a cited file holds now: absent, refused by the file-access module, or its symbols and whole-file fingerprint. */
type SourceState =
  | { exists: false; refused?: FileAccessError }
  | { exists: true; symbols?: Pick<FileSymbols, 'get' | 'symbols' | 'reExports' | 'members' | 'partial' | 'shapeOf'>; fingerprint: string };

/** What a caller will read of a file: some symbols (and the whole-file fingerprint), or `all` of it (every declaration, to find a rename). */
type Reads = WantedSymbols | 'all';

/** A cited symbol's declaration: the file that declares it (after re-exports), the symbol, and that file's symbols. */
interface Declared {
  path: string;
  symbol: SourceSymbol;
  file: Pick<FileSymbols, 'symbols' | 'members' | 'partial' | 'shapeOf'>;
}

/** Files to read before a check parses on other threads: fewer parse faster here than a thread starts. */
const BATCH_FILES = 32;
/** Barrels rarely nest deeply; this bounds a cycle the `seen` set does not catch. */
const MAX_REEXPORT_HOPS = 16;

/** Checks code citations against the code. Caches each cited file until `invalidate` says it changed. */
export class DriftEngine {
  private readonly sources = new Map<string, Promise<SourceState>>();
  /** The state each read in `sources` settled to: a citation it answers is checked without waiting. */
  private readonly settled = new Map<string, SourceState>();
  private readonly shapes = new WeakMap<Declared['file'], Map<string, string>>();
  /** Line ranges, keys of data files and folders: citations of no declaration. */
  private readonly parts: CitedParts;

  constructor(
    private readonly root: string,
    private readonly fs: FileSystem,
    private readonly parser: SymbolParser,
    private readonly search: SymbolSearch,
    /** Semantic mode: the resolved types of cited symbols, compared when an anchor records one. */
    private readonly types?: TypeFingerprints,
  ) {
    this.parts = new CitedParts(root, fs);
  }

  /** Forgets a file's cached state (it was saved, created, deleted or renamed). */
  invalidate(relPath: string): void {
    this.sources.delete(relPath);
    this.settled.delete(relPath);
    this.parts.invalidate(relPath);
    this.types?.invalidate(relPath);
  }

  /** Forgets every cached file, for a check that must read the code as it is now. */
  invalidateAll(): void {
    for (const relPath of [...this.sources.keys()]) this.invalidate(relPath);
  }

  /** Checks the pages' citations; `only` narrows that to some of them (a pull request's: those into changed files). */
  async check(pages: readonly WikiPage[], cancel?: CancellationFlag, only?: (citation: Citation, page: WikiPage) => boolean): Promise<DriftReport> {
    const issues: DriftIssue[] = [];
    let citationsChecked = 0;
    let pagesChecked = 0;
    // Archived pages are out of service: their citations are history, not claims about the code now.
    const cited = pages.filter((page) => page.readable && !isArchived(page)).map((page) => ({ page, citations: only ? citationsOf(page).filter((citation) => only(citation, page)) : citationsOf(page) }));
    // Read every cited file concurrently once, telling the parser what will be read of it; the checks below use those reads.
    const wanted = new Map<string, { names: Set<string>; wholeFile: boolean }>();
    for (const { citations } of cited) {
      for (const citation of citations) {
        if (citation.outside || isPartCitation(citation)) continue;
        let entry = wanted.get(citation.path);
        if (!entry) wanted.set(citation.path, (entry = { names: new Set(), wholeFile: false }));
        if (citation.symbol) entry.names.add(citation.symbol);
        else entry.wholeFile = true;
      }
    }
    // A batch worth the threads' start-up parses on every core (they start now, while files are read); a save's few files parse here.
    const unread = [...wanted.keys()].filter((file) => !this.sources.has(file));
    const threads = unread.length >= BATCH_FILES ? this.parser.threads?.(unread) : undefined;
    // Settled, never rejected: a read that fails while the checks wait on another file is not an unhandled rejection.
    const reads = Promise.allSettled([...wanted].map(([file, reads]) => this.source(file, reads, threads)));
    try {
      // Each page is checked as soon as its own files are in, while others still parse: a page
      // waiting on a large file holds up no later page, and the checks keep pace with the parses.
      const reports = await Promise.all(cited.map(async ({ page, citations }) => {
        await Promise.allSettled(citations.filter((citation) => !citation.outside && !isPartCitation(citation)).map((citation) => this.source(citation.path)));
        if (cancel?.cancelled) return undefined;
        const found: DriftIssue[] = [];
        const anchors = page.frontmatter.anchors ?? {};
        for (const citation of citations) {
          // Synchronous when reads are (CLI, MCP, drift worker): fingerprints are hashed here, files parsed in checkCitation.
          while (turnDue()) await nextTurn();
          const issue = await this.checked(citation, anchors[citation.text]);
          if (issue) found.push({ ...issue, page: page.relPath, range: citation.range, severity: DEFAULT_DRIFT_SEVERITY[issue.code] });
        }
        return { citations: citations.length, found };
      }));
      // In page order, whichever finished first.
      for (const report of reports) {
        if (!report) continue;
        pagesChecked++;
        citationsChecked += report.citations;
        issues.push(...report.found);
      }
    } finally {
      const failed = (await reads).find((read): read is PromiseRejectedResult => read.status === 'rejected');
      await threads?.release();
      // A read that failed fails the check here, if no citation's check did first.
      if (failed) throw failed.reason;
    }
    return { pagesChecked, citationsChecked, issues };
  }

  /** The fingerprint a citation would be stamped with now; '' for a folder, whose existence is all it claims; undefined when it does not resolve. */
  async currentAnchor(citation: Pick<Citation, 'path' | 'symbol' | 'outside' | 'lines' | 'folder'>): Promise<string | undefined> {
    if (citation.outside) return undefined;
    if (isPartCitation(citation)) return this.parts.currentAnchor(citation);
    const source = await this.source(citation.path, { names: citation.symbol ? [citation.symbol] : [], wholeFile: !citation.symbol });
    if (!source.exists) return !citation.symbol && (await this.parts.isFolder(citation.path)) ? '' : undefined;
    if (!citation.symbol) return fileAnchor(source.fingerprint);
    const declared = await this.declaration(citation.path, citation.symbol);
    return declared && this.anchorOf(declared);
  }

  /**
   * Where a symbol is declared now (its file and qualified name there, after re-exports), for "open
   * the cited symbol"; throws the refusal of a file Repo Wiki does not read (a link out).
   */
  async locate(citation: Pick<Citation, 'path' | 'symbol' | 'lines' | 'folder'>): Promise<CodeLocation | undefined> {
    if (isPartCitation(citation)) return this.parts.locate(citation);
    const source = await this.source(citation.path);
    if (!source.exists && source.refused) throw source.refused;
    if (!source.exists) return !citation.symbol && (await this.parts.isFolder(citation.path)) ? { path: citation.path, line: 0, folder: true } : undefined;
    if (!citation.symbol) return { path: citation.path, line: 0 };
    const declared = await this.declaration(citation.path, citation.symbol);
    return declared && { path: declared.path, line: declared.symbol.startLine, symbol: declared.symbol.name };
  }

  /** The text of a workspace file now, through the guarded file access; undefined when it is gone or refused. */
  async textOf(relPath: string): Promise<string | undefined> {
    try {
      return new TextDecoder().decode(await this.fs.readFile(path.join(this.root, relPath)));
    } catch (error) {
      if (isNotAFile(error) || isFileAccessError(error)) return undefined;
      throw error;
    }
  }

  /** The lines of `symbol` in one version of a file (the whole text without a symbol); undefined when that version does not declare it. */
  async excerpt(relPath: string, text: string, symbol?: string): Promise<string | undefined> {
    if (!symbol) return text;
    await this.parser.prepare?.(relPath); // a full scan parsed on other threads: this one may not have the grammar yet
    const declared = this.parser.parse(relPath, text).get(symbol);
    return declared && text.split('\n').slice(declared.startLine, declared.endLine + 1).join('\n');
  }

  /** The anchor of a declaration as stamped now: a container's records its shape; in semantic mode, the type too. */
  private anchorOf({ path: relPath, symbol, file }: Declared): string {
    const anchor = CONTAINER_KINDS.has(symbol.kind) ? symbolAnchor(symbol, this.shapeOf(file, symbol)) : symbolAnchor(symbol);
    const type = this.types?.typeOf(relPath, symbol.name);
    return type ? `${anchor} type:${type}` : anchor;
  }

  /** A container's shape, taken once per parse of its file (or by the thread that parsed it): every citation of it or of its members reads it. */
  private shapeOf(file: Declared['file'], container: SourceSymbol): string {
    const taken = file.shapeOf?.(container.name);
    if (taken !== undefined) return taken;
    let shapes = this.shapes.get(file);
    if (!shapes) this.shapes.set(file, (shapes = new Map()));
    let shape = shapes.get(container.name);
    if (shape === undefined) shapes.set(container.name, (shape = containerShape(file, container)));
    return shape;
  }

  /**
   * Where a cited symbol is declared: in the cited file, or in the module it is re-exported from
   * (`export { X } from`, `export *`, `export { X as Y }`, an import exported again), followed
   * through barrels by module path alone, never through a whole program.
   */
  private async declaration(relPath: string, name: string, seen = new Set<string>(), through?: Set<string>): Promise<Declared | undefined> {
    through?.add(relPath);
    const source = await this.source(relPath, { names: [name] });
    if (!source.exists || !source.symbols) return undefined;
    const symbol = source.symbols.get(name);
    if (symbol) return { path: relPath, symbol, file: source.symbols };
    const key = `${relPath}:${name}`;
    if (seen.has(key) || seen.size >= MAX_REEXPORT_HOPS) return undefined;
    seen.add(key);
    const [head, ...rest] = name.split('.');
    for (const entry of (await this.reExportsOf(relPath)) ?? []) {
      const target = entry.exported === '*' ? name : entry.exported !== head ? undefined : entry.imported === '*' ? rest.join('.') : [entry.imported, ...rest].join('.');
      if (!target) continue; // not this name, or a namespace re-export cited as a whole
      const module = await this.resolveModule(relPath, entry.from, through);
      const found = module && (await this.declaration(module, target, seen, through));
      if (found) return found;
    }
    return undefined;
  }

  /**
   * What a file exports from other modules; undefined when it is gone or its language has none. A
   * file parsed on another thread did not say: it is parsed again here (a barrel's citations only).
   */
  async reExportsOf(relPath: string): Promise<readonly ReExport[] | undefined> {
    let source = await this.source(relPath);
    if (source.exists && source.symbols?.partial && !source.symbols.reExports) source = await this.source(relPath, 'all');
    return source.exists ? source.symbols?.reExports?.() : undefined;
  }

  /**
   * Every file a citation's symbol resolves through now (its own file, each barrel on the way and
   * each file a module specifier may name, there or not): a change to any of them can change its verdict.
   */
  async resolvedThrough(citation: Pick<Citation, 'path' | 'symbol'>): Promise<string[]> {
    const through = new Set<string>([citation.path]);
    if (citation.symbol) await this.declaration(citation.path, citation.symbol, new Set(), through);
    return [...through];
  }

  /** The files that re-export from one of `changed`, through any number of barrels (see barrels.ts). */
  reExportersOf(changed: readonly string[]): Promise<string[]> {
    return reExportersOf(changed, { search: this.search, reExportsOf: (file) => this.reExportsOf(file), sameLanguage });
  }

  /** A module specifier as a workspace file (see moduleCandidates); `through` collects every file tried. */
  private async resolveModule(fromPath: string, specifier: string, through?: Set<string>): Promise<string | undefined> {
    for (const candidate of moduleCandidates(fromPath, specifier)) {
      through?.add(candidate);
      if ((await this.source(candidate)).exists) return candidate;
    }
    return undefined;
  }

  /** A citation's issue, if any. Symbols are parsed when first read, so a file nested too deeply overflows here: only its citations say so. */
  private async checked(citation: Citation, anchor: string | undefined): Promise<CitationIssue | undefined> {
    try {
      if (!isPartCitation(citation) && this.unchanged(citation, anchor)) return undefined;
      return await this.checkCitation(citation, anchor);
    } catch (error) {
      if (!isStackOverflow(error)) throw error;
      return citationIssue(citation, DriftCode.UnreadableFile, tooDeep(citation.path).message);
    }
  }

  private async checkCitation(citation: Citation, anchor: string | undefined): Promise<CitationIssue | undefined> {
    const issue = (code: DriftCode, message: string, extra: Partial<DriftIssue['data']> = {}) => citationIssue(citation, code, message, extra);
    if (citation.outside) {
      return issue(DriftCode.OutsideWorkspace, `${citation.path} is outside the workspace; citations must be relative to the workspace folder, and this one is not read.`);
    }
    if (isPartCitation(citation)) {
      const verdict = await this.parts.check(citation, anchor);
      return verdict && issue(verdict.code, verdict.message, verdict.extra);
    }
    const source = await this.source(citation.path, citation.symbol ? { names: [citation.symbol] } : { names: [], wholeFile: true });
    if (!source.exists && source.refused) {
      // A FIFO, a device, a huge file or a link out: reported on this citation, and the run goes on.
      const outside = source.refused.reason === 'link-outside' || source.refused.reason === 'outside';
      return issue(outside ? DriftCode.OutsideWorkspace : DriftCode.UnreadableFile, source.refused.message);
    }
    if (!source.exists) {
      const movedTo = citation.symbol ? await this.findMoved(citation) : undefined;
      if (movedTo) return issue(DriftCode.MovedSymbol, `${citation.symbol} moved: ${citation.path} no longer exists and it is now declared in ${movedTo}.`, { movedTo });
      const renamed = citation.symbol && anchor ? await this.findRenamedFile(citation, parseAnchor(anchor)) : undefined;
      if (renamed) {
        return issue(DriftCode.RenamedSymbol, `${citation.path} no longer exists, and ${citation.symbol} is now ${renamed.declared.symbol.name} in ${renamed.path}: a declaration with the same code is there.`, { movedTo: renamed.path, renamedTo: renamed.declared.symbol.name, anchor: this.anchorOf(renamed.declared) });
      }
      // `src/adapters` where a folder is: a folder citation, true while the folder exists.
      if (!citation.symbol && (await this.parts.isFolder(citation.path))) return undefined;
      return issue(DriftCode.MissingFile, `${citation.path} does not exist.`);
    }
    const declared = citation.symbol ? await this.declaration(citation.path, citation.symbol) : undefined;
    const current = declared?.symbol;
    if (citation.symbol && !current) {
      // The recorded code under a new name in the same file is the surest sign, and cheaper than the
      // search: a copy elsewhere that declares the old name (a vendored or duplicated module) is no move.
      // Every declaration's code is compared: a file parsed on another thread is parsed again here, whole.
      const whole = anchor && source.symbols ? await this.source(citation.path, 'all') : undefined;
      const symbols = whole?.exists ? whole.symbols : undefined;
      const renamed = symbols && findRenamed(symbols, citation.symbol, parseAnchor(anchor!));
      if (renamed) {
        return issue(DriftCode.RenamedSymbol, `${citation.symbol} was renamed to ${renamed.name} in ${citation.path}: a declaration with the same code is there under the new name.`, { renamedTo: renamed.name, anchor: this.anchorOf({ path: citation.path, symbol: renamed, file: symbols }) });
      }
      const movedTo = await this.findMoved(citation);
      if (movedTo) return issue(DriftCode.MovedSymbol, `${citation.symbol} is no longer in ${citation.path}; it is now declared in ${movedTo}.`, { movedTo });
      return issue(DriftCode.MissingSymbol, `${citation.symbol} is not declared in ${citation.path}.`);
    }
    // Built only for an issue: in semantic mode it asks the type checker.
    const now = () => (declared ? this.anchorOf(declared) : fileAnchor(source.fingerprint));
    if (!anchor) {
      return issue(DriftCode.Unverified, unverifiedMessage(citation.text), { anchor: now() });
    }
    const recorded = parseAnchor(anchor);
    if (!current) {
      if (recorded.file !== source.fingerprint) return issue(DriftCode.BodyChanged, `${citation.path} changed since this page was verified.`, { anchor: now() });
      return undefined;
    }
    if (recorded.sig !== current.sig) return issue(DriftCode.SignatureChanged, `The signature of ${citation.symbol} changed since this page was verified.`, { anchor: now() });
    // Semantic mode: the same text can have a new type, through code it calls or uses.
    const type = recorded.type !== undefined && declared ? this.types?.typeOf(declared.path, declared.symbol.name) : undefined;
    if (type !== undefined && type !== recorded.type) {
      return issue(DriftCode.TypeChanged, `The type of ${citation.symbol} changed since this page was verified, through code it calls or uses.`, { anchor: now() });
    }
    // A container stamped with its shape: only a member added, removed or re-signed changes it.
    if (recorded.shape !== undefined && CONTAINER_KINDS.has(current.kind)) {
      if (recorded.shape === this.shapeOf(declared!.file, current)) return undefined;
      return issue(DriftCode.SignatureChanged, `The members of ${citation.symbol} changed since this page was verified: one was added, removed or re-signed.`, { anchor: now() });
    }
    if (recorded.body !== (await this.bodyOf(declared!))) return issue(DriftCode.BodyChanged, `The code of ${citation.symbol} changed since this page was verified.`, { anchor: now() });
    return undefined;
  }

  /** A declaration's body fingerprint: a container's is not taken by a parse on another thread (its shape is), so its file is parsed again here. */
  private async bodyOf(declared: Declared): Promise<string> {
    if (!CONTAINER_KINDS.has(declared.symbol.kind) || !declared.file.partial) return declared.symbol.body;
    const whole = await this.source(declared.path, 'all');
    return (whole.exists && whole.symbols?.get(declared.symbol.name)?.body) || declared.symbol.body;
  }

  /** After a file rename and a symbol rename: a file of the same language beside the old one that declares the recorded code under another name. */
  private async findRenamedFile(citation: Citation, recorded: ParsedAnchor): Promise<{ path: string; declared: Declared } | undefined> {
    const siblings = (await this.search.filesIn?.(path.posix.dirname(citation.path).replace(/^\.$/, ''))) ?? [];
    for (const file of siblings.filter((candidate) => candidate !== citation.path && sameLanguage(candidate, citation.path)).sort()) {
      const source = await this.source(file, 'all');
      if (!source.exists || !source.symbols) continue;
      const symbol = findRenamed(source.symbols, citation.symbol!, recorded);
      if (symbol) return { path: file, declared: { path: file, symbol, file: source.symbols } };
    }
    return undefined;
  }

  /** Another file of the same language that declares the symbol: text search first, then a parse to confirm. */
  private async findMoved(citation: Citation): Promise<string | undefined> {
    const symbol = citation.symbol!;
    const word = symbol.split('.')[0];
    // Any module may have a default export: another file's is a different one, not this one moved.
    if (word === 'default') return undefined;
    const candidates = (await this.search.filesContaining(word, (file) => sameLanguage(file, citation.path))).filter((file) => file !== citation.path && sameLanguage(file, citation.path)).sort();
    for (const candidate of candidates) {
      const source = await this.source(candidate, { names: [symbol] });
      if (source.exists && source.symbols?.get(symbol)) return candidate;
    }
    return undefined;
  }

  /**
   * A file's state, read once; `wanted` tells the parser what the first reader will ask of it. A
   * file parsed on another thread answers only what was wanted of it then: a caller that reads
   * more gets it parsed again here, whole.
   */
  private source(relPath: string, wanted?: Reads, threads?: ParseThreads): Promise<SourceState> {
    // A parse here is always whole: `all` tells the parser nothing more to prepare for.
    const first = wanted === 'all' ? undefined : wanted;
    const known = this.sources.get(relPath);
    if (!known) return this.remember(relPath, this.read(relPath, first, threads));
    if (!wanted) return known;
    return known.then((state) => {
      if (answers(state, wanted)) return state;
      if (this.sources.get(relPath) !== known) return this.source(relPath, wanted); // parsed again meanwhile
      return this.remember(relPath, this.read(relPath, first, undefined));
    });
  }

  private remember(relPath: string, reading: Promise<SourceState>): Promise<SourceState> {
    this.sources.set(relPath, reading);
    this.settled.delete(relPath);
    reading.then(
      (state) => this.sources.get(relPath) === reading && this.settled.set(relPath, state),
      // A read that failed (a parse thread that died) is not remembered: the next check reads the file again.
      () => this.sources.get(relPath) === reading && this.sources.delete(relPath),
    );
    return reading;
  }

  /**
   * Whether a citation certainly still matches its stamp, decided without waiting, as most of a
   * scan's do: its file is read and declares the symbol itself, and each fingerprint the anchor
   * recorded is unchanged. Anything else (an issue, a re-export, a type) is checkCitation's to decide.
   */
  private unchanged(citation: Citation, anchor: string | undefined): boolean {
    const state = anchor && !citation.outside ? this.settled.get(citation.path) : undefined;
    if (!state?.exists) return false;
    const recorded = parseAnchor(anchor!);
    if (!citation.symbol) return answers(state, { names: [], wholeFile: true }) && recorded.file === state.fingerprint;
    if (!state.symbols || !answers(state, { names: [citation.symbol] }) || (recorded.type !== undefined && this.types)) return false;
    const current = state.symbols.get(citation.symbol);
    if (!current || recorded.sig !== current.sig) return false;
    if (!CONTAINER_KINDS.has(current.kind)) return recorded.body === current.body;
    return recorded.shape !== undefined && recorded.shape === this.shapeOf(state.symbols, current);
  }

  private async read(relPath: string, wanted: WantedSymbols | undefined, threads: ParseThreads | undefined): Promise<SourceState> {
    // No stat first: one system call less per cited file, and a missing file shows up in the read anyway.
    const readBytes = () => this.fs.readFile(path.join(this.root, relPath));
    try {
      if (!SYMBOL_FILE.test(relPath)) return { exists: true, fingerprint: contentFingerprint(await readBytes()) };
      // On threads, the file is read when one is ready for it.
      if (threads) return parsedState(await threads.parse(relPath, readBytes, wanted));
      const bytes = await readBytes();
      await this.parser.prepare?.(relPath);
      while (turnDue()) await nextTurn(); // parses here follow one another synchronously: let other work in
      return parsedState(this.parser.parse(relPath, new TextDecoder().decode(bytes), wanted));
    } catch (error) {
      if (isNotAFile(error)) return { exists: false };
      if (isFileAccessError(error)) return { exists: false, refused: error };
      // One file's overflow is that file's issue: every other citation is still checked.
      if (isStackOverflow(error)) return { exists: false, refused: tooDeep(relPath) };
      throw error;
    }
  }
}

/** Where cited code is: 0-based lines (`endLine` for a range or a key), or a folder. */
export interface CodeLocation {
  path: string;
  line: number;
  endLine?: number;
  symbol?: string;
  folder?: true;
}

type CitationIssue = Omit<DriftIssue, 'page' | 'range' | 'severity'>;

function citationIssue(citation: Citation, code: DriftCode, message: string, extra: Partial<DriftIssue['data']> = {}): CitationIssue {
  return { code, message, data: { citation: citation.text, path: citation.path, ...(citation.symbol ? { symbol: citation.symbol } : {}), ...extra } };
}

function tooDeep(relPath: string): FileAccessError {
  return new FileAccessError('too-deep', relPath, `${relPath} is nested too deeply to parse, so its citations cannot be checked.`, 'Every other citation was checked. Cite code from a hand-written file instead of this one.');
}

/** The state of a file that parsed: the whole-file hash costs a pass over every token, so it is taken only for whole-file citations. */
function parsedState(parsed: FileSymbols): SourceState {
  return { exists: true, symbols: parsed, get fingerprint() { return parsed.fingerprint; } };
}

/** Whether a file's state answers these reads without parsing it again. */
function answers(state: SourceState, wanted: Reads): boolean {
  if (!state.exists || !state.symbols) return true;
  return answersWanted(state.symbols, wanted === 'all' ? undefined : wanted);
}

/**
 * The declaration a vanished symbol was renamed to: the one other symbol of the file with the
 * recorded body (a container: the recorded shape), preferring the same parent (`Cart.add` to
 * `Cart.append`) when bodies repeat. A member without a body of its own matches only as the same
 * member, unchanged, of a container that was renamed (`Cart.owner` to `Basket.owner`).
 */
function findRenamed(file: Pick<FileSymbols, 'symbols'>, name: string, recorded: ParsedAnchor): SourceSymbol | undefined {
  const last = (qualified: string) => qualified.slice(qualified.lastIndexOf('.') + 1);
  const parent = (qualified: string) => qualified.slice(0, Math.max(0, qualified.lastIndexOf('.')));
  const matches = (symbol: SourceSymbol) => {
    if (symbol.name === name) return false;
    if (recorded.shape !== undefined) return CONTAINER_KINDS.has(symbol.kind) && containerShape(file, symbol) === recorded.shape && hasMembers(file.symbols, symbol);
    if (recorded.body === undefined) return false;
    if (recorded.body !== recorded.sig) return symbol.body === recorded.body && symbol.body !== symbol.sig && !symbol.emptyBody;
    // No body of its own (a property, a parameter property): the same member, unchanged, of a renamed container.
    return !!parent(name) && !file.symbols.has(parent(name)) && last(symbol.name) === last(name) && symbol.sig === recorded.sig && symbol.body === symbol.sig;
  };
  const candidates = [...file.symbols.values()].filter(matches);
  if (candidates.length <= 1) return candidates[0];
  const siblings = candidates.filter((symbol) => parent(symbol.name) === parent(name));
  return siblings.length === 1 ? siblings[0] : undefined;
}

function hasMembers(symbols: ReadonlyMap<string, SourceSymbol>, container: SourceSymbol): boolean {
  for (const name of symbols.keys()) if (name.startsWith(`${container.name}.`)) return true;
  return false;
}


/** A symbol moves within its language: TS and JS files are one language, so are C and C++. */
export function sameLanguage(a: string, b: string): boolean {
  const family = (file: string) => (TS_LIKE.test(file) ? 'ts' : /\.(c|h|cc|cpp|cxx|hh|hpp|hxx)$/i.test(file) ? 'c' : path.extname(file).toLowerCase());
  return SYMBOL_FILE.test(a) && family(a) === family(b);
}

/** FNV-1a over the bytes with line endings normalised, so a CRLF checkout is not drift. */
export function contentFingerprint(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10) continue;
    hash ^= bytes[i];
    hash = Math.imul(hash, 0x01000193);
  }
  return hex8(hash);
}
