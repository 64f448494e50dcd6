import { isConfident, type RetrievedPage } from './retrieval';

export const OFFLINE_MODEL = 'offline';

/** Why there is no model: shapes the last line of an offline answer. */
export type OfflineReason = 'no-key' | 'no-model' | 'untrusted' | 'requested';

const NEXT_STEP: Record<OfflineReason, string> = {
  'no-key': 'For a written answer, choose a model with **Repo Wiki: Set up a model…**: Anthropic, OpenAI or a compatible server, Azure OpenAI, Ollama on this machine, or a VS Code model.',
  'no-model': 'For a written answer, a VS Code language model is needed (the model is vscode/…) and none is available: install or sign in to one, such as GitHub Copilot, or choose another with **Repo Wiki: Set up a model…**.',
  untrusted: 'This workspace is in Restricted Mode, so nothing is sent to a model. Trust the workspace for written answers.',
  requested: 'Answered offline, as asked.',
};

export const NO_ANSWER = 'The wiki has nothing that answers this.';

/**
 * An answer from retrieval alone: the passages of the pages that match the question well enough,
 * with links, clearly labelled. Weak matches are only named, never quoted as if they answered.
 */
export function offlineAnswer(retrieved: readonly RetrievedPage[], reason: OfflineReason): string {
  if (!isConfident(retrieved)) return noAnswer(retrieved, reason);
  const lines = ['**Offline answer** — no model was used. These wiki passages match your question:', ''];
  for (const page of retrieved.filter((found) => found.confident !== false)) {
    const stale = page.status !== 'active' ? ` _(${page.status})_` : '';
    lines.push(`### [[${page.slug}]] ${page.title}${stale}`, '');
    if (page.summary) lines.push(`_${page.summary}_`, '');
    if (page.passage) lines.push(...page.passage.split('\n').map((line) => `> ${line}`), '');
  }
  lines.push('', NEXT_STEP[reason]);
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/** The answer below the confidence floor when a model could not look further (it has no tools). */
export function noMatchAnswer(weak: readonly RetrievedPage[]): string {
  const related = weak.length ? ` Loosely related pages: ${weak.map((page) => `[[${page.slug}]] ${page.title}`).join(', ')}.` : '';
  return `${NO_ANSWER}${related} Rephrase the question, or add a page that covers it.`;
}

function noAnswer(weak: readonly RetrievedPage[], reason: OfflineReason): string {
  const lines = [`**Offline answer** — no model was used. ${NO_ANSWER}`, ''];
  if (weak.length) lines.push(`Loosely related pages: ${weak.map((page) => `[[${page.slug}]] ${page.title}`).join(', ')}.`, '');
  lines.push(NEXT_STEP[reason]);
  return lines.join('\n');
}
