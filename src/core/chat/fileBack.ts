import { findCitations } from '../drift/citations';
import { parseLinks } from '../pages/markdown';
import type { PageFrontmatter, WikiPage } from '../model';
import { slugify, uniqueSlug } from '../pages/slug';
import type { Wiki, WikiWrites } from '../wiki/wiki';
import type { ConversationRecord, ConversationStore } from './conversation';
import { stepLines } from './export';
import { partialRecord, partialSlug, partialSource, type TurnRange } from './lineage';

const SUMMARY_MAX_CHARS = 160;

export interface FileBackResult {
  slug: string;
  path: string;
  /** False when an earlier save was overwritten in place. */
  created: boolean;
}

/**
 * Saves a whole conversation as one page (topic `conversations`). Saving again overwrites the same
 * page, found through the conversation's `filed_page`; git keeps the earlier versions.
 */
export async function fileBackConversation(wiki: Wiki, store: ConversationStore, record: ConversationRecord, today: string): Promise<FileBackResult> {
  const result = await fileBackRecord(wiki, record, today);
  await store.setFiledPage(record.conversation.id, result.slug);
  return result;
}

/** Writes a conversation as a page, without a store to remember it in (an exchange in VS Code's own chat). */
export function fileBackRecord(wiki: Wiki, record: ConversationRecord, today: string): Promise<FileBackResult> {
  if (!record.turns.length) throw new Error('This conversation has no answers to save yet.');
  // The slug is chosen under the lock: another window filing a conversation of the same title gets the next one.
  return wiki.exclusive(async (writes) => {
    const { conversation } = record;
    const previous = conversation.filedPage ? await wiki.readPage(conversation.filedPage) : undefined;
    return writeConversationPage(wiki, writes, record, today, { previous, slugBase: slugify(conversation.title) || 'conversation', source: `conversation:${conversation.id}` });
  });
}

/**
 * Saves turns `range` of a conversation as a page of their own, as the whole conversation is saved.
 * The page is found again by its source (`conversation:ID#turns-N-M`), so saving the same turns
 * again overwrites it in place, whatever the conversation is called by then.
 */
export function fileBackTurns(wiki: Wiki, record: ConversationRecord, range: TurnRange, today: string): Promise<FileBackResult> {
  const part = partialRecord(record, range);
  if (!part.turns.length) throw new Error('Those turns have no answers to save.');
  const source = partialSource(record.conversation.id, range);
  return wiki.exclusive(async (writes) => {
    const previous = (await wiki.loadPages()).find((page) => page.frontmatter.sources?.includes(source));
    return writeConversationPage(wiki, writes, part, today, { previous, slugBase: partialSlug(record.conversation.title, range), source });
  });
}

/** Where a conversation's page goes: the page it overwrites (if any), else a new slug from `slugBase`. */
interface PageTarget {
  previous?: WikiPage;
  slugBase: string;
  /** The page's `sources` entry. */
  source: string;
}

async function writeConversationPage(wiki: Wiki, writes: WikiWrites, record: ConversationRecord, today: string, target: PageTarget): Promise<FileBackResult> {
  const { conversation, turns } = record;
  const { previous } = target;
  const existing = new Set((await wiki.loadPages()).map((p) => p.slug));
  const slug = previous ? previous.slug : uniqueSlug(target.slugBase, existing);
  existing.delete(slug); // the page never lists itself as a source
  const body = conversationBody(record, existing);
  const cited = new Set(findCitations({ body, bodyStartLine: 0 }).map((c) => c.text));
  const keptAnchors = Object.fromEntries(Object.entries(previous?.frontmatter.anchors ?? {}).filter(([citation]) => cited.has(citation)));
  const frontmatter: PageFrontmatter = {
    title: conversation.title,
    topic: 'conversations',
    summary: summaryOf(turns[0].question),
    status: 'active',
    tags: ['conversation'],
    created: previous?.frontmatter.created ?? today,
    updated: today,
    corroborations: previous?.frontmatter.corroborations ?? 0,
    sources: [target.source],
    anchors: keptAnchors,
  };
  const path = await writes.writePage(slug, frontmatter, body, previous?.extraFields);
  await writes.rebuildIndex();
  await wiki.appendLog({ op: 'file-back', pages: [slug], conversation: conversation.id, turns: turns.length });
  return { slug, path, created: !previous };
}

/** The page body: every question and answer, then the existing pages and the code the answers used. */
export function conversationBody(record: ConversationRecord, existingPages: ReadonlySet<string>): string {
  const { conversation, turns } = record;
  const lines = [`# ${conversation.title}`, '', `_A conversation with the wiki, ${turns.length} question${turns.length === 1 ? '' : 's'}._`, ''];
  for (const turn of turns) {
    lines.push(`## ${oneLine(turn.question)}`, '');
    if (turn.context.selection) {
      const s = turn.context.selection;
      lines.push(`About \`${s.path}\` lines ${s.startLine}–${s.endLine}.`, '');
    }
    // Plain text, not citations: a failed step's path must not become a broken citation on the page.
    if (turn.steps?.length) lines.push('Looked up:', '', ...stepLines(turn.steps), '');
    lines.push(turn.answer.trim(), '');
  }
  const answers = turns.map((t) => t.answer).join('\n\n');
  // Stale pages that were only retrieved are left out: linking them from an active page is a lint warning.
  const used = [...parseLinks(answers, 0).map((l) => l.target), ...turns.flatMap((t) => t.context.pages.filter((p) => !p.stale).map((p) => p.slug))];
  const linked = new Set(used.filter((slug) => existingPages.has(slug)));
  const code = [...new Set(findCitations({ body: answers, bodyStartLine: 0 }).map((c) => c.text))];
  if (linked.size || code.length) {
    lines.push('## Sources', '');
    for (const slug of [...linked].sort()) lines.push(`- [[${slug}]]`);
    for (const citation of code.sort()) lines.push(`- \`${citation}\``);
    lines.push('');
  }
  return lines.join('\n');
}

function summaryOf(question: string): string {
  const line = oneLine(question);
  return line.length <= SUMMARY_MAX_CHARS ? `Q&A: ${line}` : `Q&A: ${line.slice(0, SUMMARY_MAX_CHARS - 1).trimEnd()}…`;
}

/** A question as a heading: one line, and no leading characters that would change its meaning. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/^[#>\-*+\d.]+\s*/, '') || '(empty question)';
}
