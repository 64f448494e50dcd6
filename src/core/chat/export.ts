import type { ConversationRecord, ToolStep } from './conversation';

/**
 * A turn's tool steps as Markdown list items: what was looked up, and what came of it. Plain
 * text: a model-chosen input must not become a code citation or a wiki link on a filed page.
 */
export function stepLines(steps: readonly ToolStep[] | undefined): string[] {
  const plain = (text: string) => text.replace(/\s+/g, ' ').replace(/`/g, "'").replace(/\[\[|\]\]/g, '');
  return (steps ?? []).map((step) => `- ${plain(step.label)}: ${step.ok ? '' : 'failed, '}${plain(step.summary)}`);
}

/**
 * Export formats: 1 had no tags and no summary, and its Markdown carried no record to import from;
 * 2 had no lineage; 3 adds a fork's `parentConversationId` and `forkedAtTurn`, and (optional, read when present) `titleSource`,
 * and `siblings`: the other answers Retry made, each with its `index` and `sibling`, while each turn's `sibling` says which it shows.
 */
export const EXPORT_FORMAT = 'repo-wiki-conversation';
export const EXPORT_VERSION = 3;
/** Opens the hidden comment at the end of a Markdown export that holds the whole record as JSON. */
export const MARKDOWN_RECORD_MARKER = `<!-- ${EXPORT_FORMAT} `;

/**
 * A conversation as a Markdown document a person can read or paste elsewhere. It ends with an
 * HTML comment (invisible when rendered) holding the full record, so an import loses nothing.
 */
export function conversationToMarkdown(record: ConversationRecord): string {
  const { conversation, turns } = record;
  const tags = conversation.tags.length ? ` · tags: ${conversation.tags.join(', ')}` : '';
  const lines = [`# ${conversation.title}`, '', `_${conversation.created.slice(0, 10)} · ${turns.length} question${turns.length === 1 ? '' : 's'}${tags}_`, ''];
  for (const turn of turns) {
    lines.push(`## ${turn.question.replace(/\s+/g, ' ').trim()}`, '');
    if (turn.context.selection) {
      const s = turn.context.selection;
      lines.push(`About \`${s.path}\` lines ${s.startLine}–${s.endLine}:`, '', `\`\`\`\`${s.language}`, s.text, '````', '');
    }
    if (turn.steps?.length) lines.push('Looked up:', '', ...stepLines(turn.steps), '');
    lines.push(turn.answer.trim(), '');
    if (turn.siblingCount) lines.push(`_Answer ${(turn.sibling ?? 0) + 1} of ${turn.siblingCount}; the others are in the record below._`, '');
    if (turn.context.unverified?.length) lines.push(`_Unverified citations (not read, and not found in the code): ${turn.context.unverified.join(', ')}_`, '');
    const pages = turn.context.pages.map((p) => `[[${p.slug}]]${p.stale ? ' (stale)' : ''}`).join(', ');
    lines.push(`_Pages used: ${pages || 'none'} · ${turn.context.offline ? 'offline answer' : turn.model}_`, '');
  }
  // "<" and ">" only occur inside JSON strings, where "\u003c" and "\u003e" read back the same: so the
  // record can neither close its comment early ("-->") nor hold a second marker.
  const json = JSON.stringify(exportObject(record)).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
  lines.push(`${MARKDOWN_RECORD_MARKER}v${EXPORT_VERSION}`, json, '-->', '');
  return lines.join('\n');
}

/** A conversation as JSON, with every stored field. */
export function conversationToJson(record: ConversationRecord): string {
  return `${JSON.stringify(exportObject(record), null, 2)}\n`;
}

function exportObject(record: ConversationRecord) {
  // siblingCount follows from the siblings, as the store counts them.
  const turns = record.turns.map(({ siblingCount: _count, ...turn }) => turn);
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, conversation: record.conversation, turns, ...(record.siblings?.length ? { siblings: record.siblings } : {}) };
}
