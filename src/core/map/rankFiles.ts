import type { FileFacts, MapDefinition } from './fileFacts';
import { DeclaredNames } from './identifiers';
import { pageRank, type OutEdges } from './pageRank';

/** What a question or a selection mentions: the map ranks around these. */
export interface MapFocus {
  /** Workspace-relative paths of files. */
  files: ReadonlySet<string>;
  /** Identifiers. */
  names: ReadonlySet<string>;
}

export interface RankedDefinition {
  definition: MapDefinition;
  /**
   * What flows to this declaration from the files that use its name: each file's rank, plus an
   * equal vote per file (see definitionShares).
   */
  rank: number;
}

export interface RankedFile {
  path: string;
  /** PageRank, summing to 1 over every file. */
  rank: number;
  /** Its declarations, the most used first. */
  definitions: RankedDefinition[];
  /** At least the rank of its best declaration (0 when none is used or focused), known without ranking them all. */
  best: number;
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
 * times how telling the name is. With a focus, the walk restarts at the focused files and at the
 * files declaring focused names. Highest rank first; equal ranks by path.
 */
export function rankFiles(files: readonly FileFacts[], focus: MapFocus = { files: new Set(), names: new Set() }): RankedFile[] {
  return new FileRanker().rank(files, focus);
}

/**
 * One file's edges out: to each file declaring a name it uses, summed per file (what the walk
 * follows), and to each declaration of those names, by its slot (what a declaration's rank sums).
 */
interface EdgesOut extends OutEdges {
  // Plain arrays: made for every file of a repository, typed arrays cost more to allocate than they save.
  targets: number[];
  weights: number[];
  slots: number[];
  slotWeights: number[];
  total: number;
}

/**
 * rankFiles, remembering its graph: when a map runs again after a save that declared nothing new
 * (the same files, each declaring the same names of the same kinds), only the saved files' edges
 * are made again, and the walk starts from the last ranks. A different focus makes the graph anew.
 */
export class FileRanker {
  private last?: { files: readonly FileFacts[]; focusKey: string; definers: Definers; byPath: Int32Array; edges: EdgesOut[]; ranks: Float64Array };

  rank(files: readonly FileFacts[], focus: MapFocus = { files: new Set(), names: new Set() }): RankedFile[] {
    const focusKey = JSON.stringify([[...focus.files].sort(), [...focus.names].sort()]);
    const reusable = this.last && this.last.focusKey === focusKey && sameDeclarations(this.last.files, files) ? this.last : undefined;
    const definers = reusable?.definers ?? definersOf(files);
    const byPath = reusable?.byPath ?? placesByPath(files);
    const sums = new Float64Array(files.length);
    // The same files in the same order: an unchanged file (the same facts) keeps its edges.
    const edges = files.map((file, source) => (reusable?.files[source] === file ? reusable.edges[source] : edgesOut(file, source, files, definers, focus, sums)));
    const ranks = pageRank(edges, personalisation(files, focus, definers), reusable?.ranks);
    this.last = { files: [...files], focusKey, definers, byPath, edges, ranks };
    // Many files share a rank (those nothing uses): ties are broken by path, compared once per graph.
    const order = files.map((_, index) => index).sort((a, b) => ranks[b] - ranks[a] || byPath[a] - byPath[b]);
    const shares = definitionShares(edges, ranks, definers.slots);
    const best = bestShares(shares, definers.fileOfSlot, files.length);
    // What the question mentions comes first: a focused file's declarations, and declarations of a
    // focused name, gain their file's rank (which the walk's restarts made high), used or not.
    const fileBoost = (index: number) => (focus.files.has(files[index].path) ? ranks[index] : 0);
    const nameBoost = (index: number, name: string) => (focus.names.has(name) ? ranks[index] : 0);
    const declaresFocusedName = (index: number) => focus.names.size > 0 && files[index].definitions.some(({ name }) => focus.names.has(name));
    // A map shows a few files: their declarations are ranked when read.
    return order.map((index) => {
      let definitions: RankedDefinition[] | undefined;
      return {
        path: files[index].path,
        rank: ranks[index],
        best: best[index] + fileBoost(index) + (declaresFocusedName(index) ? ranks[index] : 0),
        get definitions() {
          return (definitions ??= files[index].definitions
            .map((definition) => ({ definition, rank: shareOf(shares, definers, index, definition.name) + fileBoost(index) + nameBoost(index, definition.name) }))
            .sort((a, b) => b.rank - a.rank || a.definition.line - b.definition.line));
        },
      };
    });
  }
}

/** Each file's place among the files sorted by path. */
function placesByPath(files: readonly FileFacts[]): Int32Array {
  const places = new Int32Array(files.length);
  files
    .map((_, index) => index)
    .sort((a, b) => (files[a].path < files[b].path ? -1 : files[a].path > files[b].path ? 1 : 0))
    .forEach((index, place) => (places[index] = place));
  return places;
}

function edgesOut(file: FileFacts, source: number, files: readonly FileFacts[], definers: Definers, focus: MapFocus, sums: Float64Array): EdgesOut {
  const focused = focus.files.has(file.path) ? FOCUSED_REFERENCER : 1;
  const slots: number[] = [];
  const slotWeights: number[] = [];
  // Each target's weight is summed in `sums` (all zeros between calls), in the order targets are first met.
  const targets: number[] = [];
  const { counts } = file.references;
  const found = definers.names.indexesOf(file.references);
  const own = definers.locals[source];
  for (let i = 0; i < counts.length; i++) {
    const at = found[i];
    if (at < 0) continue;
    const declaring = definers.entries[at];
    // A name the file declares itself is, most likely, its own (a script's `files`, a module's `main`).
    if (declaring.files.includes(source) || (own.size > 0 && own.has(declaring.name))) continue;
    const weight = focused * (declaring.weight ??= weightOfName(declaring.name, declaring.files, files, focus.names)) * Math.sqrt(counts[i]);
    for (let k = 0; k < declaring.files.length; k++) {
      const target = declaring.files[k];
      slots.push(declaring.slots[k]);
      slotWeights.push(weight);
      if (sums[target] === 0) targets.push(target);
      sums[target] += weight;
    }
  }
  const weights = targets.map((target) => {
    const weight = sums[target];
    sums[target] = 0;
    return weight;
  });
  let total = 0;
  for (const weight of slotWeights) total += weight;
  return { targets, weights, slots, slotWeights, total };
}

/**
 * By slot: what flows to each declaration from the files that use its name, as Aider ranks
 * declarations (each file's rank, shared out as its edges weigh), plus an equal vote of 1/files
 * from every file: a name many files use (an API that tests, examples and scripts call) is what a
 * reader of the map looks for, though those files are used by none and rank low.
 */
function definitionShares(edges: readonly EdgesOut[], ranks: Float64Array, slots: number): Float64Array {
  const shares = new Float64Array(slots);
  const vote = 1 / edges.length;
  for (let source = 0; source < edges.length; source++) {
    const { slots: to, slotWeights, total } = edges[source];
    const flow = (ranks[source] + vote) / total;
    for (let i = 0; i < to.length; i++) shares[to[i]] += flow * slotWeights[i];
  }
  return shares;
}

/** By file: the largest share among its declarations. */
function bestShares(shares: Float64Array, fileOfSlot: Int32Array, files: number): Float64Array {
  const best = new Float64Array(files);
  for (let slot = 0; slot < shares.length; slot++) if (shares[slot] > best[fileOfSlot[slot]]) best[fileOfSlot[slot]] = shares[slot];
  return best;
}

/** The rank of a file's declaration of `name`: 0 when the name is out of the graph. */
function shareOf(shares: Float64Array, definers: Definers, index: number, name: string): number {
  const declaring = definers.byName.get(name);
  const k = declaring ? declaring.files.indexOf(index) : -1;
  return k < 0 ? 0 : shares[declaring!.slots[k]];
}

/** The same paths, in the same order, each declaring the same names of the same kinds, and keeping the same ones to itself, as before. */
function sameDeclarations(before: readonly FileFacts[], files: readonly FileFacts[]): boolean {
  if (before.length !== files.length) return false;
  for (let index = 0; index < files.length; index++) {
    const file = files[index];
    const old = before[index];
    if (file === old) continue;
    if (file.path !== old.path || file.definitions.length !== old.definitions.length) return false;
    for (let i = 0; i < old.definitions.length; i++) {
      if (file.definitions[i].name !== old.definitions[i].name || file.definitions[i].kind !== old.definitions[i].kind) return false;
    }
    if (!sameNames(file.own ?? NO_NAMES, old.own ?? NO_NAMES)) return false;
  }
  return true;
}

const NO_NAMES: ReadonlySet<string> = new Set();

function sameNames(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((name) => b.has(name));
}

/**
 * Name → the files declaring it. A variable named as a function, class or type declared elsewhere
 * is a binding to it (`const { Router } = require('./router')`), not a declaration of its own;
 * a name declared in more than MAX_DEFINERS files links everything to everything, and tells nothing.
 */
function definersOf(files: readonly FileFacts[]): Definers {
  // Name → the files declaring it, each as index * 2, plus 1 when its first declaration there is a variable's (maybe a binding).
  const declared = new Map<string, number[]>();
  const locals = files.map((file) => file.own ?? NO_NAMES);
  files.forEach((file, index) => {
    const own = locals[index];
    for (const { name, kind } of file.definitions) {
      if (own.size > 0 && own.has(name)) continue;
      let list = declared.get(name);
      if (!list) declared.set(name, (list = []));
      if (list.length === 0 || list[list.length - 1] >> 1 !== index) list.push(index * 2 + (kind === 'variable' ? 1 : 0));
    }
  });
  const byName = new Map<string, Declarations>();
  const entries: Declarations[] = [];
  const fileOfSlot: number[] = [];
  for (const [name, list] of declared) {
    const declaring = list.some((entry) => (entry & 1) === 0) ? list.filter((entry) => (entry & 1) === 0) : list;
    if (declaring.length > MAX_DEFINERS) continue;
    const files = declaring.map((entry) => entry >> 1);
    // Its weight is known when first needed, but its property is there from the start: every entry has one shape.
    const entry: Declarations = { name, files, slots: files.map((file) => fileOfSlot.push(file) - 1), weight: undefined };
    byName.set(name, entry);
    entries.push(entry);
  }
  // A name no file holds as a word (`operator+`, a non-ASCII one) is no reference's: DeclaredNames leaves it out.
  const names = new DeclaredNames(entries.map((entry) => entry.name));
  return { byName, names, entries, slots: fileOfSlot.length, fileOfSlot: new Int32Array(fileOfSlot), locals };
}

/** Name → the files declaring it, and for each, the slot its declaration's rank is summed in (and each slot's file). */
interface Definers {
  byName: Map<string, Declarations>;
  /** What a reference is followed by: a word's index in `entries`, or -1. */
  names: DeclaredNames;
  /** byName's entries, each at the index `names` gives its name. */
  entries: readonly Declarations[];
  slots: number;
  fileOfSlot: Int32Array;
  /** By file: the names it declares for itself (FileFacts.own), in the graph as neither declarations nor references. */
  locals: ReadonlySet<string>[];
}

interface Declarations {
  name: string;
  files: number[];
  slots: number[];
  /** How telling a reference to the name is (weightOfName), once known: kept while the graph is (the same declarations, the same focus). */
  weight?: number;
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
function personalisation(files: readonly FileFacts[], focus: MapFocus, definers: Definers): Float64Array | undefined {
  if (!focus.files.size && !focus.names.size) return undefined;
  const personal = new Float64Array(files.length);
  files.forEach((file, index) => {
    if (focus.files.has(file.path)) personal[index] = 1;
  });
  for (const name of focus.names) for (const index of definers.byName.get(name)?.files ?? []) personal[index] = 1;
  return personal;
}
