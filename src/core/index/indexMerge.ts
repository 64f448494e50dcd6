// The git merge driver for the generated catalog: a three-way merge page by page, so that two
// branches that each add or edit different pages merge with no conflict, and the result is exactly
// what regenerating from the merged pages gives. Both files hold one entry per page; a page changed
// differently on both sides is a conflict (its page file conflicts too), and ours is kept for it.
// The sides come from any branch being merged, so every entry must be one a rebuild could have
// written; anything else is refused rather than carried into the merged file.
import { STATUSES, TOPICS, type IndexEntry, type PageStatus, type Topic, type WikiIndex } from '../model';
import { isValidSlug } from '../pages/slug';
import { hasConflictMarkers } from '../text/text';
import { ARCHIVED_HEADING, INDEX_MARKDOWN_PREAMBLE as PREAMBLE, parseIndex, renderIndexJson, topicLabel } from './wikiIndex';

export interface IndexMergeResult {
  /** The merged file, or undefined when a side cannot be proven to be a generated catalog. */
  text?: string;
  /** Slugs changed differently on both sides. */
  conflicts: string[];
  /** Why `text` is undefined: the side, and what in it no rebuild would write. */
  problem?: string;
}

/** Merges `index.json` or `index.md` (chosen by `fileName`) from the common ancestor, ours and theirs. */
export function mergeIndexFile(fileName: string, base: string, ours: string, theirs: string): IndexMergeResult {
  const format = fileName.endsWith('.md') ? MARKDOWN : JSON_FORMAT;
  const sides: Map<string, string>[] = [];
  for (const [name, text] of [['base', base], ['ours', ours], ['theirs', theirs]]) {
    const read = format.read(text);
    if (typeof read === 'string') return { conflicts: [], problem: `${name}: ${read}` };
    sides.push(read);
  }
  const [o, a, b] = sides;
  const merged = new Map<string, string>();
  const conflicts: string[] = [];
  for (const slug of new Set([...o.keys(), ...a.keys(), ...b.keys()])) {
    const [was, mine, their] = [o.get(slug), a.get(slug), b.get(slug)];
    let value = mine;
    if (mine !== their) {
      if (mine === was) value = their;
      else if (their !== was) conflicts.push(slug);
    }
    if (value !== undefined) merged.set(slug, value);
  }
  return { text: format.write(merged), conflicts: conflicts.sort() };
}

/** One entry per slug, as text, and back. */
interface EntryFormat {
  /** The entries, or what in `text` no rebuild would write. */
  read(text: string): Map<string, string> | string;
  write(entries: Map<string, string>): string;
}

const bySlug = (entries: Map<string, string>) => [...entries].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));

/** Quotes a value from a side for a message, short enough for one line. */
const quote = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
};

const JSON_FORMAT: EntryFormat = {
  read(text) {
    const parsed = parseIndex(text);
    if (!('index' in parsed)) {
      if (!text.trim()) return new Map(); // an absent file (added on one side)
      return parsed.problem === 'conflict' ? 'has conflict markers' : 'is not a catalog (version 1 with a list of pages)';
    }
    const extra = Object.keys(parsed.index).find((key) => key !== 'version' && key !== 'pages');
    if (extra !== undefined) return `has the unknown top-level key ${quote(extra)}`;
    const entries = new Map<string, string>();
    for (const [i, entry] of (parsed.index.pages as unknown as Record<string, unknown>[]).entries()) {
      const problem = entryProblem(entry);
      if (problem) return `page ${i + 1} ${problem}`;
      const valid = entry as unknown as IndexEntry;
      if (entries.has(valid.slug)) return `lists the page "${valid.slug}" twice`;
      entries.set(valid.slug, JSON.stringify(inKeyOrder(valid)));
    }
    return entries;
  },
  write(entries) {
    const index: WikiIndex = { version: 1, pages: bySlug(entries).map(([, entry]) => JSON.parse(entry) as IndexEntry) };
    return renderIndexJson(index);
  },
};

/** The keys buildIndex writes, in its order; only superseded_by is optional. */
const ENTRY_KEYS: readonly (keyof IndexEntry)[] = ['slug', 'path', 'title', 'topic', 'summary', 'status', 'tags', 'updated', 'corroborations', 'links', 'superseded_by'];

/** What in an index.json entry (an object, as parseIndex checked) buildIndex would never write, or undefined when it could have. */
function entryProblem(entry: Record<string, unknown>): string | undefined {
  const unknownKey = Object.keys(entry).find((key) => !(ENTRY_KEYS as readonly string[]).includes(key));
  if (unknownKey !== undefined) return `has the unknown key ${quote(unknownKey)}`;
  const { slug } = entry;
  if (typeof slug !== 'string' || !isValidSlug(slug)) return `has the slug ${quote(slug)}, which is not a valid page slug`;
  const at = `("${slug}")`;
  if (entry.path !== `.wiki/pages/${slug}.md`) return `${at} has the path ${quote(entry.path)}, not ".wiki/pages/${slug}.md"`;
  const notString = (['title', 'summary', 'updated'] as const).find((key) => typeof entry[key] !== 'string');
  if (notString) return `${at} has a ${notString} that is not a string`;
  if (!TOPICS.includes(entry.topic as Topic)) return `${at} has the topic ${quote(entry.topic)}, not one of ${TOPICS.join(', ')}`;
  if (!STATUSES.includes(entry.status as PageStatus)) return `${at} has the status ${quote(entry.status)}, not one of ${STATUSES.join(', ')}`;
  if (!isStringList(entry.tags)) return `${at} has tags that are not a list of strings`;
  if (!isStringList(entry.links) || !entry.links.every(isLinkTarget)) return `${at} has links that are not a list of [[link]] targets`;
  if (!Number.isInteger(entry.corroborations) || (entry.corroborations as number) < 0) return `${at} has corroborations that are not a whole number of 0 or more`;
  if ('superseded_by' in entry && (typeof entry.superseded_by !== 'string' || !isValidSlug(entry.superseded_by))) {
    return `${at} has superseded_by ${quote(entry.superseded_by)}, which is not a valid page slug`;
  }
  return undefined;
}

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * A target parseLinks can read from `[[target]]`: a rebuild lists link targets as written, broken
 * ones included (lint reports those), so a target need not be a valid slug.
 */
const isLinkTarget = (target: string) => target !== '' && target === target.trim() && !/[[\]|\n]/.test(target);

/** The entry with buildIndex's key order, so that sides differing only in key order compare equal. */
const inKeyOrder = (entry: IndexEntry) => Object.fromEntries(ENTRY_KEYS.filter((key) => key in entry).map((key) => [key, entry[key]]));

// Text as escapeMarkdown writes it: the characters it escapes appear only escaped.
const MARKDOWN_TEXT = /(?:[^\\`*_[\]<>|\n]|\\[\\`*_[\]<>|])+/.source;
const NOT_ACTIVE = STATUSES.filter((status) => status !== 'active').join('|');
/** An entry line exactly as renderIndexMarkdown writes it; group 1 is the slug. */
const ENTRY_LINE = new RegExp(`^- \\[${MARKDOWN_TEXT}\\]\\(pages/([a-z0-9-]+)\\.md\\)(?: _\\((?:${NOT_ACTIVE})\\)_)?(?: — ${MARKDOWN_TEXT})?$`);
/** index.md's sections: the topics, then the archived pages. */
type Section = Topic | 'archived';
const SECTIONS: readonly Section[] = [...TOPICS, 'archived'];
const sectionHeading = (section: Section) => `## ${section === 'archived' ? ARCHIVED_HEADING : topicLabel(section)}`;
const SECTION_OF_HEADING = new Map(SECTIONS.map((section) => [sectionHeading(section), section]));

/** index.md entries keyed by slug, each as `topic\nline`; what renderIndexMarkdown writes, read back. */
const MARKDOWN: EntryFormat = {
  read(text) {
    if (!text.trim()) return new Map();
    if (hasConflictMarkers(text)) return 'has conflict markers';
    const lines = text.split('\n');
    if (PREAMBLE.some((line, i) => lines[i] !== line)) return 'does not start with the generated header';
    const entries = new Map<string, string>();
    let topic: Section | undefined;
    for (const [i, line] of lines.entries()) {
      if (i < PREAMBLE.length || !line || line === 'No pages yet.') continue;
      if (line.startsWith('## ')) {
        topic = SECTION_OF_HEADING.get(line);
        if (!topic) return `line ${i + 1} is not a topic heading: ${quote(line)}`;
        continue;
      }
      const slug = ENTRY_LINE.exec(line)?.[1];
      if (!slug || !topic) return `line ${i + 1} is not a page entry: ${quote(line)}`;
      if (!isValidSlug(slug)) return `line ${i + 1} links to "pages/${slug}.md", and "${slug}" is not a valid page slug`;
      if (entries.has(slug)) return `lists the page "${slug}" twice`;
      entries.set(slug, `${topic}\n${line}`);
    }
    return entries;
  },
  write(entries) {
    const lines = [...PREAMBLE];
    if (!entries.size) lines.push('No pages yet.', '');
    const sorted = bySlug(entries).map(([, value]) => value.split('\n') as [Section, string]);
    for (const section of SECTIONS) {
      const group = sorted.filter(([entrySection]) => entrySection === section);
      if (!group.length) continue;
      lines.push(sectionHeading(section), '', ...group.map(([, line]) => line), '');
    }
    return lines.join('\n');
  },
};
