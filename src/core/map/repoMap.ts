import { isSkipped, type FileFacts, type SkippedFile } from './fileFacts';
import { FileRanker, type MapFocus } from './rankFiles';
import { renderMap, type RepoMapResult } from './renderMap';

/** The budget when none is given: about Aider's default map. */
export const DEFAULT_MAP_TOKENS = 1024;

export interface MapRequest {
  /** Paths (files or folders, workspace-relative) and names a question or a selection mentions. */
  focus?: readonly string[];
  /** The most tokens the map may take (see TOKEN_ESTIMATE). */
  tokens?: number;
  signal?: AbortSignal;
}

/** Reads and parses source files for the map, as drift does (the guarded file access, drift's parser and threads). */
export interface FileFactsReader {
  /** The workspace's source files in the languages drift parses, workspace-relative; a watched map asks only when files came or went, so as they are now. */
  sourceFiles(signal?: AbortSignal): Promise<readonly string[]>;
  /**
   * The facts of each file, or why it was skipped. `known` gives the facts already made from a
   * file's bytes by their digest: a reader parses only the files it does not know.
   */
  read(paths: readonly string[], known: (path: string, digest: string) => FileFacts | undefined, signal?: AbortSignal): Promise<(FileFacts | SkippedFile)[]>;
}

export interface RepoMapOptions {
  /**
   * A watcher tells this map of every change (filesChanged): after its first map, a map reads only
   * the files it was told of and asks for the source files again only when files came or went.
   * Without one, every map asks for the source files and has every file's version checked.
   */
  watched?: boolean;
}

/**
 * The ranked repository map of one workspace folder. Facts are kept by file and digest for as
 * long as this object lives (the extension, the MCP server): after a save, a map parses only the
 * saved file again.
 */
export class RepoMap {
  private facts = new Map<string, FileFacts>();
  private skipped = new Map<string, SkippedFile>();
  /** The source files as last listed, in the listing's order (the ranker reuses its graph for the same order). */
  private listed?: readonly string[];
  /** What a watcher told of since the last map began; undefined while every file is to be checked (unwatched, or before the first map). */
  private told?: { paths: Set<string>; listChanged: boolean };
  /** The map being made: maps run one after another, so none reads facts another is replacing. */
  private running: Promise<unknown> = Promise.resolve();
  private readonly ranker: FileRanker;

  constructor(private readonly reader: FileFactsReader, private readonly options: RepoMapOptions = {}) {
    this.ranker = new FileRanker();
  }

  /** From a watcher: these files (workspace-relative) changed; `listChanged`: files or folders came or went. */
  filesChanged(paths: Iterable<string>, listChanged: boolean): void {
    if (!this.told) return; // the next map checks every file anyway
    for (const path of paths) this.told.paths.add(path);
    this.told.listChanged ||= listChanged;
  }

  map(request: MapRequest = {}): Promise<RepoMapResult> {
    const made = this.running.then(() => this.mapNow(request));
    // The next map waits for this one to settle; a failure is this map's caller's to hear.
    this.running = made.then(noop, noop);
    return made;
  }

  private async mapNow(request: MapRequest): Promise<RepoMapResult> {
    const files = await this.refresh(request.signal);
    const focus = resolveFocus(request.focus ?? [], files.map((file) => file.path));
    return renderMap(this.ranker.rank(files, focus), request.tokens ?? DEFAULT_MAP_TOKENS, [...this.skipped.values()]);
  }

  /** Reads what changed since the last map (everything, when nothing tells this map of changes); the facts of every listed file, in the listing's order. */
  private async refresh(signal: AbortSignal | undefined): Promise<FileFacts[]> {
    const told = this.told;
    if (this.options.watched) this.told = { paths: new Set(), listChanged: false };
    try {
      const listed = !told || told.listChanged || !this.listed ? await this.reader.sourceFiles(signal) : this.listed;
      const stale = told ? listed.filter((path) => told.paths.has(path) || !(this.facts.has(path) || this.skipped.has(path))) : listed;
      const entries = await this.reader.read(stale, (path, digest) => {
        const known = this.facts.get(path);
        return known?.digest === digest ? known : undefined;
      }, signal);
      // A file read again replaces what was known of it; one deleted since the listing is in neither.
      for (const path of stale) {
        this.facts.delete(path);
        this.skipped.delete(path);
      }
      for (const entry of entries) {
        if (isSkipped(entry)) this.skipped.set(entry.path, entry);
        else this.facts.set(entry.path, entry);
      }
      if (listed !== this.listed) this.forgetUnlisted(new Set(listed));
      this.listed = listed;
      return listed.map((path) => this.facts.get(path)).filter((facts): facts is FileFacts => facts !== undefined);
    } catch (error) {
      // What this map was to read is still to be read.
      if (told) this.filesChanged(told.paths, told.listChanged);
      else this.told = undefined;
      throw error;
    }
  }

  /** Files gone since the last listing go with it. */
  private forgetUnlisted(listed: ReadonlySet<string>): void {
    for (const path of this.facts.keys()) if (!listed.has(path)) this.facts.delete(path);
    for (const path of this.skipped.keys()) if (!listed.has(path)) this.skipped.delete(path);
  }
}

function noop(): void {}

/** A focus entry is a file, a folder (its files) or, when it names neither, an identifier. */
export function resolveFocus(entries: readonly string[], paths: readonly string[]): MapFocus {
  const files = new Set<string>();
  const names = new Set<string>();
  const known = new Set(paths);
  for (const entry of entries) {
    const normalised = entry.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
    if (known.has(normalised)) {
      files.add(normalised);
      continue;
    }
    const folder = `${normalised}/`;
    const inside = paths.filter((path) => path.startsWith(folder));
    if (inside.length) inside.forEach((path) => files.add(path));
    // `Router.match` mentions both names.
    else if (/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(normalised)) for (const name of normalised.split('.')) names.add(name);
  }
  return { files, names };
}
