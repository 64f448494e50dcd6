import type { ConversationRecord, ToolStep } from './conversation';

/**
 * A turn's tool steps as Markdown list items: what was looked up, and what came of it. Plain
 * text: a model-chosen input must not become a code citation or a wiki link on a filed page.
 */
export function stepLines(steps: readonly ToolStep[] | undefined): string[] {
  const plain = (text: string) => text.replace(/\s+/g, ' ').replace(/`/g, "'").replace(/\[\[|\]\]/g, '');
  return (steps ?? []).map((step) => `- ${plain(step.label)}: ${step.ok ? '' : 'failed, '}${plain(step.summary)}`);
}

/** A conversation as a Markdown document a person can read or paste elsewhere. */
export function conversationToMarkdown(record: ConversationRecord): string {
  const { conversation, turns } = record;
  const lines = [`# ${conversation.title}`, '', `_${conversation.created.slice(0, 10)} · ${turns.length} question${turns.length === 1 ? '' : 's'}_`, ''];
  for (const turn of turns) {
    lines.push(`## ${turn.question.replace(/\s+/g, ' ').trim()}`, '');
    if (turn.context.selection) {
      const s = turn.context.selection;
      lines.push(`About \`${s.path}\` lines ${s.startLine}–${s.endLine}:`, '', `\`\`\`\`${s.language}`, s.text, '````', '');
    }
    if (turn.steps?.length) lines.push('Looked up:', '', ...stepLines(turn.steps), '');
    lines.push(turn.answer.trim(), '');
    if (turn.context.unverified?.length) lines.push(`_Unverified citations (not read, and not found in the code): ${turn.context.unverified.join(', ')}_`, '');
    const pages = turn.context.pages.map((p) => `[[${p.slug}]]${p.stale ? ' (stale)' : ''}`).join(', ');
    lines.push(`_Pages used: ${pages || 'none'} · ${turn.context.offline ? 'offline answer' : turn.model}_`, '');
  }
  return lines.join('\n');
}

/** A conversation as JSON, with every stored field. */
export function conversationToJson(record: ConversationRecord): string {
  return `${JSON.stringify({ format: 'repo-wiki-conversation', version: 1, ...record }, null, 2)}\n`;
}
