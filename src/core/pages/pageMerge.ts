// The git merge driver for pages: frontmatter merged key by key (anchors citation by citation),
// the body merged as text. Two branches that each re-stamped drift anchors then merge cleanly, and
// only a citation both re-stamped differently, a field both changed differently, or body lines
// both edited stay conflicts, with conflict markers where they are.
import type { PageFrontmatter } from '../model';
import { FIELD_ORDER, serializeFrontmatter } from './frontmatter';
import { parsePage, serializePage, yamlBlock } from './page';

/** A three-way text merge (git merge-file): the result, with conflict markers where both sides changed the same lines. */
export type TextMerge = (base: string, ours: string, theirs: string) => Promise<{ text: string; conflicted: boolean }>;

export interface ConflictMarkers {
  /** Length of each marker, as git passes it (%L); 7 by default. */
  size: number;
  ours: string;
  theirs: string;
}

export interface PageMergeResult {
  text: string;
  /** What both sides changed differently (`anchor "src/a.ts:Foo"`, `field "summary"`, `body`); empty when the merge is clean. */
  conflicts: string[];
  /** Set when a side is not a valid page: the whole file was merged as text instead, and this says why. */
  asText?: string;
}

/** A page split for merging: its frontmatter keys (schema fields validated, the rest as written) and its body. */
interface PageSides {
  fields: Map<string, unknown>;
  body: string;
}

/** One key's three-way outcome. */
type Outcome<T> = { value: T | undefined } | { ours: T | undefined; theirs: T | undefined };

/** Merges a page file from the common ancestor, ours and theirs. */
export async function mergePageFile(base: string, ours: string, theirs: string, mergeText: TextMerge, markers: ConflictMarkers): Promise<PageMergeResult> {
  if (ours === theirs || base === theirs) return { text: ours, conflicts: [] };
  if (base === ours) return { text: theirs, conflicts: [] };
  const sides: PageSides[] = [];
  for (const [name, text] of [['base', base], ['ours', ours], ['theirs', theirs]] as const) {
    const read = readPage(text, name === 'base');
    if (typeof read === 'string') {
      const merged = await mergeText(base, ours, theirs);
      return { text: merged.text, conflicts: merged.conflicted ? ['text'] : [], asText: `${name} ${read}` };
    }
    sides.push(read);
  }
  const [o, a, b] = sides;
  const body = await mergeText(o.body, a.body, b.body);
  const fields = mergeFields(o.fields, a.fields, b.fields);
  const anchors = anchorsOf(o, a, b);
  const conflicts = [
    ...[...fields].flatMap(([key, outcome]) => ('value' in outcome ? [] : [`field "${key}"`])),
    ...[...(fields.has('anchors') ? anchors : [])].flatMap(([citation, outcome]) => ('value' in outcome ? [] : [`anchor "${citation}"`])),
    ...(body.conflicted ? ['body'] : []),
  ];
  if (!conflicts.length) {
    const schema: Record<string, unknown> = {};
    const extras: Record<string, unknown> = {};
    for (const [key, outcome] of fields) {
      const value = outcome === ANCHORS ? Object.fromEntries([...anchors].map(([citation, anchor]) => [citation, (anchor as { value: string }).value])) : (outcome as { value: unknown }).value;
      (isSchemaKey(key) ? schema : extras)[key] = value;
    }
    return { text: serializePage(schema as unknown as PageFrontmatter, body.text, extras), conflicts };
  }
  return { text: `---\n${renderConflicted(fields, anchors, markers)}---\n${body.text}`, conflicts };
}

/** A side's fields and body, or why it cannot be merged field by field. An absent base (both sides added the page) is an empty page. */
function readPage(text: string, isBase: boolean): PageSides | string {
  if (isBase && text === '') return { fields: new Map(), body: '' };
  // parsePage reads CRLF as LF; writing the merge back would then change every line ending.
  if (text.includes('\r')) return 'has CRLF line endings';
  const page = parsePage('.wiki/pages/merged-page.md', 'merged-page', new TextEncoder().encode(text));
  if (!page.valid) return `is not a valid page (${page.problems[0]?.message ?? 'unreadable'})`;
  const fields = new Map<string, unknown>();
  // Only the keys the side has: a field it leaves out (tags, say) is not written with its default.
  for (const key of FIELD_ORDER) if (key in page.fieldLines) fields.set(key, page.frontmatter[key]);
  for (const [key, value] of Object.entries(page.extraFields)) fields.set(key, value);
  return { fields, body: page.body };
}

const isSchemaKey = (key: string) => (FIELD_ORDER as readonly string[]).includes(key);
const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

/** The usual three-way rule: a side that changed a value wins over one that did not; both changing it alike agree; both changing it differently conflict. */
function mergeValue<T>(was: T | undefined, mine: T | undefined, their: T | undefined): Outcome<T> {
  if (same(mine, their) || same(their, was)) return { value: mine };
  if (same(mine, was)) return { value: their };
  return { ours: mine, theirs: their };
}

/** Stands for the anchors in the merged fields: they merge citation by citation (anchorsOf), not as one value. */
const ANCHORS: Outcome<unknown> = { value: 'anchors' };

/** Every key merged, schema fields first in page order, then the other keys in the order ours, theirs and the base have them. */
function mergeFields(o: Map<string, unknown>, a: Map<string, unknown>, b: Map<string, unknown>): Map<string, Outcome<unknown>> {
  const merged = new Map<string, Outcome<unknown>>();
  for (const key of new Set([...FIELD_ORDER, ...a.keys(), ...b.keys(), ...o.keys()])) {
    if (key === 'anchors' && (a.has(key) || b.has(key))) {
      merged.set(key, ANCHORS);
      continue;
    }
    const outcome = mergeValue(o.get(key), a.get(key), b.get(key));
    if (!('value' in outcome) || outcome.value !== undefined) merged.set(key, outcome);
  }
  return merged;
}

/** Each citation's anchor merged on its own, in the order ours, theirs and the base list them; anchors both sides dropped are gone. */
function anchorsOf(...sides: PageSides[]): Map<string, Outcome<string>> {
  const [o, a, b] = sides.map((side) => (side.fields.get('anchors') ?? {}) as Record<string, string>);
  const merged = new Map<string, Outcome<string>>();
  for (const citation of new Set([...Object.keys(a), ...Object.keys(b), ...Object.keys(o)])) {
    const outcome = mergeValue(o[citation], a[citation], b[citation]);
    if (!('value' in outcome) || outcome.value !== undefined) merged.set(citation, outcome);
  }
  return merged;
}

/** The frontmatter, with conflict markers around each conflicting field or anchor line. */
function renderConflicted(fields: Map<string, Outcome<unknown>>, anchors: Map<string, Outcome<string>>, markers: ConflictMarkers): string {
  const block = (ours: string, theirs: string) =>
    `${'<'.repeat(markers.size)} ${markers.ours}\n${ours}${'='.repeat(markers.size)}\n${theirs}${'>'.repeat(markers.size)} ${markers.theirs}\n`;
  const lines = (key: string, value: unknown) => (value === undefined ? '' : isSchemaKey(key) ? serializeFrontmatter({ [key]: value } as unknown as PageFrontmatter) : yamlBlock({ [key]: value }));
  // serializeFrontmatter's line for one anchor, as it writes it under "anchors:".
  const anchorLine = (citation: string, anchor: string | undefined) => (anchor === undefined ? '' : `${serializeFrontmatter({ anchors: { [citation]: anchor } } as unknown as PageFrontmatter).split('\n')[1]}\n`);
  let out = '';
  for (const [key, outcome] of fields) {
    if (outcome === ANCHORS) {
      out += anchors.size ? 'anchors:\n' : 'anchors: {}\n';
      for (const [citation, anchor] of anchors) out += 'value' in anchor ? anchorLine(citation, anchor.value) : block(anchorLine(citation, anchor.ours), anchorLine(citation, anchor.theirs));
    } else if ('value' in outcome) out += lines(key, outcome.value);
    else out += block(lines(key, outcome.ours), lines(key, outcome.theirs));
  }
  return out;
}
