import { estimateTokens } from '../chat/prompt';
import type { MapDefinition, SkippedFile } from './fileFacts';
import type { RankedFile } from './rankFiles';

/** How tokens are counted, as every prompt of Repo Wiki counts them (estimateTokens). */
export const TOKEN_ESTIMATE = 'characters / 4, rounded up';
/** A file shows at most its this many most-used declarations: the next file says more than a long tail. */
export const MAX_DEFINITIONS_PER_FILE = 12;

export interface MappedFile {
  path: string;
  rank: number;
  /** The declarations shown, in the file's order. */
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
 * The highest-ranked files and their most-used declarations, within `budget` tokens: files in rank
 * order while the next one (its path and its first declaration) fits, each with as many of its
 * declarations as fit. The text's estimate never exceeds the budget.
 */
export function renderMap(ranked: readonly RankedFile[], budget: number, skipped: readonly SkippedFile[] = []): RepoMapResult {
  const maxChars = budget * 4;
  const lines: string[] = [];
  let chars = -1; // the first line has no newline before it
  const fits = (line: string) => chars + 1 + line.length <= maxChars;
  const add = (line: string) => {
    lines.push(line);
    chars += 1 + line.length;
  };
  const files: MappedFile[] = [];
  for (const file of ranked) {
    const header = `${file.path}:`;
    const candidates = file.definitions.slice(0, MAX_DEFINITIONS_PER_FILE);
    const first = candidates[0] ? definitionLine(candidates[0].definition) : undefined;
    if (!fits(header) || (first !== undefined && chars + 2 + header.length + first.length > maxChars)) break;
    // Chosen by rank, shown in the file's order.
    const shown: MapDefinition[] = [];
    const shownLines = new Set<number>();
    let room = maxChars - (chars + 1 + header.length);
    for (const { definition } of candidates) {
      // Declarations on one line (`const { a, b } = …`) share it.
      const cost = shownLines.has(definition.line) ? 0 : 1 + definitionLine(definition).length;
      if (cost > room) break;
      shown.push(definition);
      shownLines.add(definition.line);
      room -= cost;
    }
    shown.sort((a, b) => a.line - b.line || (a.name < b.name ? -1 : 1));
    add(header);
    for (const line of [...shownLines].sort((a, b) => a - b)) add(definitionLine(shown.find((definition) => definition.line === line)!));
    files.push({ path: file.path, rank: file.rank, definitions: shown });
  }
  const text = lines.join('\n');
  return { text, tokens: { budget, used: estimateTokens(text), estimate: TOKEN_ESTIMATE }, files, omitted: ranked.length - files.length, skipped: [...skipped] };
}

function definitionLine(definition: MapDefinition): string {
  return `${String(definition.line + 1).padStart(5)}│ ${definition.signature}`;
}
