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
  /** The workspace's source files in the languages drift parses, workspace-relative. */
  sourceFiles(signal?: AbortSignal): Promise<readonly string[]>;
  /**
   * The facts of each file, or why it was skipped. `known` gives the facts already made from a
   * file's bytes by their digest: a reader parses only the files it does not know.
   */
  read(paths: readonly string[], known: (path: string, digest: string) => FileFacts | undefined, signal?: AbortSignal): Promise<(FileFacts | SkippedFile)[]>;
}

/**
 * The ranked repository map of one workspace folder. Facts are kept by file and digest for as
 * long as this object lives (the extension, the MCP server): after a save, a map parses only the
 * saved file again.
 */
export class RepoMap {
  private facts = new Map<string, FileFacts>();
  private readonly ranker = new FileRanker();

  constructor(private readonly reader: FileFactsReader) {}

  async map(request: MapRequest = {}): Promise<RepoMapResult> {
    const paths = await this.reader.sourceFiles(request.signal);
    const entries = await this.reader.read(paths, (path, digest) => {
      const known = this.facts.get(path);
      return known?.digest === digest ? known : undefined;
    }, request.signal);
    const facts = new Map<string, FileFacts>();
    const skipped: SkippedFile[] = [];
    for (const entry of entries) {
      if (isSkipped(entry)) skipped.push(entry);
      else facts.set(entry.path, entry);
    }
    this.facts = facts; // deleted files go with the old map
    const focus = resolveFocus(request.focus ?? [], [...facts.keys()]);
    return renderMap(this.ranker.rank([...facts.values()], focus), request.tokens ?? DEFAULT_MAP_TOKENS, skipped);
  }
}

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
