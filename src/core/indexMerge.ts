// The git merge driver for the generated catalog: a three-way merge page by page, so that two
// branches that each add or edit different pages merge with no conflict, and the result is exactly
// what regenerating from the merged pages gives. Both files hold one entry per page; a page changed
// differently on both sides is a conflict (its page file conflicts too), and ours is kept for it.
import { TOPICS, type IndexEntry, type Topic, type WikiIndex } from './model';
import { hasConflictMarkers } from './text';
import { INDEX_MARKDOWN_PREAMBLE as PREAMBLE, parseIndex, renderIndexJson, topicLabel } from './wikiIndex';

export interface IndexMergeResult {
  /** The merged file, or undefined when a side cannot be read as a generated catalog. */
  text?: string;
  /** Slugs changed differently on both sides. */
  conflicts: string[];
}

/** Merges `index.json` or `index.md` (chosen by `fileName`) from the common ancestor, ours and theirs. */
export function mergeIndexFile(fileName: string, base: string, ours: string, theirs: string): IndexMergeResult {
  const format = fileName.endsWith('.md') ? MARKDOWN : JSON_FORMAT;
  const sides = [base, ours, theirs].map((text) => format.read(text));
  if (sides.some((side) => side === undefined)) return { conflicts: [] };
  const [o, a, b] = sides as Map<string, string>[];
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
  read(text: string): Map<string, string> | undefined;
  write(entries: Map<string, string>): string;
}

const bySlug = (entries: Map<string, string>) => [...entries].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));

const JSON_FORMAT: EntryFormat = {
  read(text) {
    const parsed = parseIndex(text);
    if (!('index' in parsed)) return text.trim() ? undefined : new Map(); // an absent file (added on one side)
    return new Map(parsed.index.pages.map((entry) => [entry.slug, JSON.stringify(entry)]));
  },
  write(entries) {
    const index: WikiIndex = { version: 1, pages: bySlug(entries).map(([, entry]) => JSON.parse(entry) as IndexEntry) };
    return renderIndexJson(index);
  },
};

const ENTRY = /^- \[.*\]\(pages\/([a-z0-9-]+)\.md\)/;
const TOPIC_OF_HEADING = new Map(TOPICS.map((topic) => [`## ${topicLabel(topic)}`, topic]));

/** index.md entries keyed by slug, each as `topic\nline`; what renderIndexMarkdown writes, read back. */
const MARKDOWN: EntryFormat = {
  read(text) {
    if (!text.trim()) return new Map();
    if (hasConflictMarkers(text)) return undefined;
    const entries = new Map<string, string>();
    let topic: Topic | undefined;
    for (const line of text.split('\n').slice(PREAMBLE.length)) {
      if (!line || line === 'No pages yet.') continue;
      if (line.startsWith('## ')) {
        topic = TOPIC_OF_HEADING.get(line);
        if (!topic) return undefined;
        continue;
      }
      const slug = ENTRY.exec(line)?.[1];
      if (!slug || !topic) return undefined;
      entries.set(slug, `${topic}\n${line}`);
    }
    return entries;
  },
  write(entries) {
    const lines = [...PREAMBLE];
    if (!entries.size) lines.push('No pages yet.', '');
    const sorted = bySlug(entries).map(([, value]) => value.split('\n') as [Topic, string]);
    for (const topic of TOPICS) {
      const group = sorted.filter(([entryTopic]) => entryTopic === topic);
      if (!group.length) continue;
      lines.push(`## ${topicLabel(topic)}`, '', ...group.map(([, line]) => line), '');
    }
    return lines.join('\n');
  },
};
