import type { LogEntry } from '../model';

const MAX_BODY_LINES = 20;

/** A commit message from the log entries since the last wiki commit, falling back to the changed paths. */
export function commitMessage(entries: readonly LogEntry[], changedPaths: readonly string[]): string {
  const ops = [...new Set(entries.map((entry) => entry.op))];
  const pages = new Set(entries.flatMap((entry) => entry.pages ?? []));
  const pageCount = pages.size || changedPaths.filter((path) => path.includes('/pages/')).length;
  const what = pageCount === 1 ? '1 page' : `${pageCount} pages`;
  const subject = ops.length ? `wiki: ${ops.join(', ')} (${what})` : `wiki: update ${what}`;

  const body = entries.length
    ? entries.map((entry) => `- ${entry.op}${entry.pages?.length ? `: ${entry.pages.join(', ')}` : ''}`)
    : changedPaths.map((path) => `- ${path}`);
  if (body.length > MAX_BODY_LINES) {
    const extra = body.length - MAX_BODY_LINES;
    body.splice(MAX_BODY_LINES, extra, `- … and ${extra} more`);
  }
  return body.length ? `${subject}\n\n${body.join('\n')}\n` : `${subject}\n`;
}
