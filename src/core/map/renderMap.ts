import { estimateTokens } from '../chat/prompt';
import type { MapDefinition, SkippedFile } from './fileFacts';
import type { RankedFile } from './rankFiles';

/** How tokens are counted, as every prompt of Repo Wiki counts them (estimateTokens). */
export const TOKEN_ESTIMATE = 'characters / 4, rounded up';
/** A file shows at most this many signature lines: the next file says more than a long tail (which may still be listed by name). */
export const MAX_DEFINITIONS_PER_FILE = 12;
/**
 * When the signatures of every declaration worth showing do not fit, they take at most this share
 * of the budget, and the rest names further declarations: a name costs a few tokens, a signature
 * line about twenty, and a name is enough to ask find_symbol for it.
 */
const SIGNATURE_SHARE = 0.5;
/** Before a file's declarations listed by name, under its signature lines. */
const ALSO = '  also: ';
/** The least a name listed after another costs beside its own characters: `, `. */
const MIN_SEPARATOR_CHARS = 2;

export interface MappedFile {
  path: string;
  rank: number;
  /** The declarations shown, by signature or by name, in the file's order. */
  definitions: MapDefinition[];
}

export interface RepoMapResult {
  /** The map as a model or a person reads it: each file, then its declarations' first lines with line numbers. */
  text: string;
  tokens: { budget: number; used: number; estimate: string };
  /** The files shown, highest rank first. */
  files: MappedFile[];
  /** Ranked files the budget left out. */
  omitted: number;
  /** Source files not read or not parsed (too large, binary, refused, nested too deeply). */
  skipped: SkippedFile[];
}

/**
 * The most-used declarations of the repository within `budget` tokens, as Aider's map chooses
 * them: declarations in order of their rank (ties by their file's rank), each file's best ones
 * shown by their first line with its number, up to MAX_DEFINITIONS_PER_FILE, while signatures fit
 * in their share of the budget; then further declarations by name, while they fit. Files in rank
 * order. The text's estimate never exceeds the budget.
 */
export function renderMap(ranked: readonly RankedFile[], budget: number, skipped: readonly SkippedFile[] = []): RepoMapResult {
  const maxChars = budget * 4;
  const candidates = bestDefinitions(ranked, maxChars);
  // Every signature, when they fit; else signatures up to their share of the budget. Names after.
  let layout = new Layout(ranked);
  let signed = layout.addSignatures(candidates, maxChars);
  if (signed.full) {
    layout = new Layout(ranked);
    signed = layout.addSignatures(candidates, maxChars * SIGNATURE_SHARE);
  }
  layout.addNames(signed.rest, maxChars);
  const { text, files } = layout.render();
  return { text, tokens: { budget, used: estimateTokens(text), estimate: TOKEN_ESTIMATE }, files, omitted: ranked.length - files.length, skipped: [...skipped] };
}

interface Candidate {
  /** Its file's place in rank order. */
  file: number;
  definition: MapDefinition;
  rank: number;
}

/**
 * The best declarations, best first (by rank, then their file's rank, then their order in the
 * file), as many as could be listed by name in `maxChars`. Files are read in order of their best
 * declaration, and only until none left can be better than the last one that could be listed: a
 * map reads a few of a large repository's files.
 */
function bestDefinitions(ranked: readonly RankedFile[], maxChars: number): Candidate[] {
  const visit = ranked.map((_, index) => index).sort((a, b) => ranked[b].best - ranked[a].best || a - b);
  const found: Candidate[] = [];
  let sorted = 0;
  let cutoff: Candidate | undefined;
  for (const file of visit) {
    // Nothing in this file (nor, read in this order, in any after it) comes before the cutoff.
    if (cutoff && (cutoff.rank > ranked[file].best || (cutoff.rank === ranked[file].best && cutoff.file < file))) break;
    for (const { definition, rank } of ranked[file].definitions) found.push({ file, definition, rank });
    // The cutoff only rises: it is found again when the candidates have doubled.
    if (found.length >= 2 * sorted) {
      found.sort(byRank);
      sorted = found.length;
      const last = lastListable(found, maxChars);
      if (last !== undefined) {
        found.length = last + 1;
        cutoff = found[last];
      }
    }
  }
  found.sort(byRank);
  const last = lastListable(found, maxChars);
  return last === undefined ? found : found.slice(0, last + 1);
}

/** The place of the last of these declarations `maxChars` could list by name (each at least its name and a separator); undefined when all of them could be. */
function lastListable(candidates: readonly Candidate[], maxChars: number): number | undefined {
  let chars = 0;
  for (let i = 0; i < candidates.length; i++) {
    chars += candidates[i].definition.name.length + MIN_SEPARATOR_CHARS;
    if (chars >= maxChars) return i;
  }
  return undefined;
}

function byRank(a: Candidate, b: Candidate): number {
  return b.rank - a.rank || a.file - b.file || a.definition.line - b.definition.line || (a.definition.name < b.definition.name ? -1 : a.definition.name > b.definition.name ? 1 : 0);
}

/** A file's part of the map: its path, its signature lines, and the names listed after them. */
interface Block {
  signatures: MapDefinition[];
  lines: Set<number>;
  names: MapDefinition[];
}

/** The map's text as declarations are added, and its length kept as they are (a text of blocks, each file's, joined by newlines). */
class Layout {
  private readonly blocks = new Map<number, Block>();
  private chars = 0;

  constructor(private readonly ranked: readonly RankedFile[]) {}

  /**
   * Adds signature lines in the candidates' order until one does not fit in `maxChars` (`full`);
   * the candidates left, those of a file with MAX_DEFINITIONS_PER_FILE lines among them.
   */
  addSignatures(candidates: readonly Candidate[], maxChars: number): { rest: Candidate[]; full: boolean } {
    const rest: Candidate[] = [];
    for (let next = 0; next < candidates.length; next++) {
      const candidate = candidates[next];
      const { file, definition } = candidate;
      const block = this.blocks.get(file);
      if (this.joinsLine(block, definition)) continue;
      if (block && block.lines.size >= MAX_DEFINITIONS_PER_FILE) {
        rest.push(candidate);
        continue;
      }
      const cost = (block ? 0 : this.headerCost(file)) + 1 + definitionLine(definition).length;
      if (this.chars + cost > maxChars) return { rest: [...rest, ...candidates.slice(next)], full: true };
      this.chars += cost;
      const into = block ?? this.open(file);
      into.signatures.push(definition);
      into.lines.add(definition.line);
    }
    return { rest, full: false };
  }

  /** Adds names in the candidates' order, each one that fits in `maxChars`. */
  addNames(candidates: readonly Candidate[], maxChars: number): void {
    for (const { file, definition } of candidates) {
      const block = this.blocks.get(file);
      if (this.joinsLine(block, definition)) continue;
      // `path: a, b` for a file with no signature lines; `also: a, b` on a line of its own under them.
      const first = !block ? this.headerCost(file) + 1 : block.names.length ? 2 : 1 + ALSO.length;
      const cost = first + definition.name.length;
      if (this.chars + cost > maxChars) continue;
      this.chars += cost;
      (block ?? this.open(file)).names.push(definition);
    }
  }

  render(): { text: string; files: MappedFile[] } {
    const lines: string[] = [];
    const files: MappedFile[] = [];
    for (const [index, block] of [...this.blocks].sort((a, b) => a[0] - b[0])) {
      const { path, rank } = this.ranked[index];
      const names = block.names.map((definition) => definition.name).join(', ');
      if (block.signatures.length) {
        lines.push(`${path}:`);
        const byLine = new Map(block.signatures.map((definition) => [definition.line, definition]));
        for (const line of [...byLine.keys()].sort((a, b) => a - b)) lines.push(definitionLine(byLine.get(line)!));
        if (names) lines.push(`${ALSO}${names}`);
      } else lines.push(`${path}: ${names}`);
      const definitions = [...block.signatures, ...block.names].sort((a, b) => a.line - b.line || (a.name < b.name ? -1 : 1));
      files.push({ path, rank, definitions });
    }
    return { text: lines.join('\n'), files };
  }

  /** A declaration on a line already shown (`const { a, b } = …`) joins it, at no cost. */
  private joinsLine(block: Block | undefined, definition: MapDefinition): boolean {
    if (!block?.lines.has(definition.line)) return false;
    block.signatures.push(definition);
    return true;
  }

  /** A new block's path and colon, after a newline unless it is the first. */
  private headerCost(file: number): number {
    return (this.blocks.size ? 1 : 0) + this.ranked[file].path.length + 1;
  }

  private open(file: number): Block {
    const block: Block = { signatures: [], lines: new Set(), names: [] };
    this.blocks.set(file, block);
    return block;
  }
}

function definitionLine(definition: MapDefinition): string {
  return `${String(definition.line + 1).padStart(5)}│ ${definition.signature}`;
}
