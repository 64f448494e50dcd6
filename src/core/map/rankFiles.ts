import type { FileFacts, MapDefinition } from './fileFacts';
import { pageRank, type WeightedEdges } from './pageRank';

/** What a question or a selection mentions: the map ranks around these. */
export interface MapFocus {
  /** Workspace-relative paths of files. */
  files: ReadonlySet<string>;
  /** Identifiers. */
  names: ReadonlySet<string>;
}

export interface RankedDefinition {
  definition: MapDefinition;
  /** The share of the ranks of the files that use this name that flows to this declaration. */
  rank: number;
}

export interface RankedFile {
  path: string;
  /** PageRank, summing to 1 over every file. */
  rank: number;
  /** Its declarations, the most used first. */
  definitions: RankedDefinition[];
}

// Aider's weights: a name few files declare, a long structured one, or a mentioned one says more
// about a reference than a short, private or common one.
const MENTIONED = 10;
const STRUCTURED = 10;
const STRUCTURED_MIN_LENGTH = 8;
const PRIVATE = 0.1;
const COMMON = 0.1;
/** Only variables declare it: often a script's own (`status`, `pages`), seldom what other files are built on. */
const VARIABLE = 0.1;
/** Declared in more files than this, a name is common (`init`, `get`, `main`). */
const COMMON_DEFINERS = 5;
/** Declared in more files than this, a name is left out of the graph (`name`, `value`, `run` in a large repository). */
const MAX_DEFINERS = 25;
/** The references of a focused file weigh this much more: what it uses is what the question is about. */
const FOCUSED_REFERENCER = 50;

/**
 * The files ranked by PageRank over their references: file A uses a name file B declares is an
 * edge A → B (unless A declares that name too), weighted as Aider's map weighs it, by √(uses)
 * times how telling the name is. With a focus, the walk restarts at the focused files and at the files declaring focused names.
 * Highest rank first; equal ranks by path.
 */
export function rankFiles(files: readonly FileFacts[], focus: MapFocus = { files: new Set(), names: new Set() }): RankedFile[] {
  const definers = definersOf(files);
  const from: number[] = [];
  const to: number[] = [];
  const weight: number[] = [];
  const names: string[] = [];
  const nameWeights = new Map<string, number>();
  // The walk needs one edge per pair of files: the same graph in far fewer edges than one per name.
  const pairs: WeightedEdges = { size: files.length, from: [], to: [], weight: [] };
  const pairWeights = new Map<number, number>();
  files.forEach((file, source) => {
    pairWeights.clear();
    const focused = focus.files.has(file.path) ? FOCUSED_REFERENCER : 1;
    for (const [name, uses] of file.references) {
      const declaring = definers.get(name);
      // A name the file declares itself is, most likely, its own (a script's `files`, a module's `main`).
      if (!declaring || declaring.includes(source)) continue;
      let nameWeight = nameWeights.get(name);
      if (nameWeight === undefined) nameWeights.set(name, (nameWeight = weightOfName(name, declaring, files, focus.names)));
      const edgeWeight = focused * nameWeight * Math.sqrt(uses);
      for (const target of declaring) {
        from.push(source);
        to.push(target);
        weight.push(edgeWeight);
        names.push(name);
        pairWeights.set(target, (pairWeights.get(target) ?? 0) + edgeWeight);
      }
    }
    for (const [target, pairWeight] of pairWeights) {
      pairs.from.push(source);
      pairs.to.push(target);
      pairs.weight.push(pairWeight);
    }
  });
  const personal = personalisation(files, focus, definers);
  const ranks = pageRank(pairs, personal);
  const definitionRanks = files.map(() => new Map<string, number>());
  const outWeight = new Float64Array(files.length);
  for (let e = 0; e < from.length; e++) outWeight[from[e]] += weight[e];
  for (let e = 0; e < from.length; e++) {
    const shares = definitionRanks[to[e]];
    shares.set(names[e], (shares.get(names[e]) ?? 0) + (ranks[from[e]] * weight[e]) / outWeight[from[e]]);
  }
  return files
    .map((file, index) => ({
      path: file.path,
      rank: ranks[index],
      definitions: file.definitions
        .map((definition) => ({ definition, rank: definitionRanks[index].get(definition.name) ?? 0 }))
        .sort((a, b) => b.rank - a.rank || a.definition.line - b.definition.line),
    }))
    .sort((a, b) => b.rank - a.rank || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Name → the files declaring it. A variable named as a function, class or type declared elsewhere
 * is a binding to it (`const { Router } = require('./router')`), not a declaration of its own;
 * a name declared in more than MAX_DEFINERS files links everything to everything, and tells nothing.
 */
function definersOf(files: readonly FileFacts[]): Map<string, number[]> {
  const declared = new Map<string, { index: number; binding: boolean }[]>();
  files.forEach((file, index) => {
    for (const { name, kind } of file.definitions) {
      const list = declared.get(name) ?? [];
      if (list[list.length - 1]?.index !== index) list.push({ index, binding: kind === 'variable' });
      declared.set(name, list);
    }
  });
  const definers = new Map<string, number[]>();
  for (const [name, list] of declared) {
    const declarations = list.some((entry) => !entry.binding) ? list.filter((entry) => !entry.binding) : list;
    if (declarations.length <= MAX_DEFINERS) definers.set(name, declarations.map((entry) => entry.index));
  }
  return definers;
}

function weightOfName(name: string, declaring: readonly number[], files: readonly FileFacts[], mentioned: ReadonlySet<string>): number {
  let weight = 1;
  if (mentioned.has(name)) weight *= MENTIONED;
  if (name.length >= STRUCTURED_MIN_LENGTH && isStructured(name)) weight *= STRUCTURED;
  if (name.startsWith('_')) weight *= PRIVATE;
  if (declaring.length > COMMON_DEFINERS) weight *= COMMON;
  if (declaring.every((index) => files[index].definitions.every((definition) => definition.name !== name || definition.kind === 'variable'))) weight *= VARIABLE;
  return weight;
}

/** snake_case or camelCase: a name someone composed, not a word. */
function isStructured(name: string): boolean {
  const letters = /[A-Za-z]/.test(name);
  return (name.includes('_') && letters) || (/[A-Z]/.test(name) && /[a-z]/.test(name));
}

/** Where the walk restarts: the focused files, and the files declaring a focused name; undefined (uniform) without a focus. */
function personalisation(files: readonly FileFacts[], focus: MapFocus, definers: ReadonlyMap<string, number[]>): Float64Array | undefined {
  if (!focus.files.size && !focus.names.size) return undefined;
  const personal = new Float64Array(files.length);
  files.forEach((file, index) => {
    if (focus.files.has(file.path)) personal[index] = 1;
  });
  for (const name of focus.names) for (const index of definers.get(name) ?? []) personal[index] = 1;
  return personal;
}
