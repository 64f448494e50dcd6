import type { RetrievedPage } from './retrieval';

export const OFFLINE_MODEL = 'offline';

/** Why there is no model: shapes the last line of an offline answer. */
export type OfflineReason = 'no-key' | 'untrusted' | 'requested';

const NEXT_STEP: Record<OfflineReason, string> = {
  'no-key': 'For a written answer, set an API key with **Repo Wiki: Set API key**.',
  untrusted: 'This workspace is in Restricted Mode, so nothing is sent to a model. Trust the workspace for written answers.',
  requested: 'Answered offline, as asked.',
};

/** An answer from retrieval alone: the best passages with links, clearly labelled. */
export function offlineAnswer(retrieved: readonly RetrievedPage[], reason: OfflineReason): string {
  const lines = ['**Offline answer** — no model was used. These wiki passages match your question:', ''];
  if (!retrieved.length) {
    lines.splice(0, 2, '**Offline answer** — no model was used, and no wiki page matches your question. The wiki does not cover this yet.');
  }
  for (const page of retrieved) {
    const stale = page.status !== 'active' ? ` _(${page.status})_` : '';
    lines.push(`### [[${page.slug}]] ${page.title}${stale}`, '');
    if (page.summary) lines.push(`_${page.summary}_`, '');
    if (page.passage) lines.push(...page.passage.split('\n').map((line) => `> ${line}`), '');
  }
  lines.push('', NEXT_STEP[reason]);
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}
