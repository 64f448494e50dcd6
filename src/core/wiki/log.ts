import type { LogEntry } from '../model';

/** One log line; `ts` and `op` first so lines read well and diff well. */
export function formatLogLine(entry: LogEntry): string {
  const { ts, op, ...rest } = entry;
  return `${JSON.stringify({ ts, op, ...rest })}\n`;
}

/**
 * Text to append after `existing`: a torn last line (a crash mid-append) is closed with a newline
 * first, so the new entry never fuses with it. Nothing already written is changed.
 */
export function appendText(existingTail: string, entry: LogEntry): string {
  const needsNewline = existingTail.length > 0 && !existingTail.endsWith('\n');
  return (needsNewline ? '\n' : '') + formatLogLine(entry);
}

/** Parses log.jsonl; unreadable lines (a torn write, a bad merge) are counted, never fatal. */
export function parseLog(text: string): { entries: LogEntry[]; skipped: number } {
  const entries: LogEntry[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const value = JSON.parse(line) as LogEntry;
      if (value && typeof value.ts === 'string' && typeof value.op === 'string') entries.push(value);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { entries, skipped };
}

/** Log lines present now but not at the last commit: what the next wiki commit records. */
export function entriesSince(committedLog: string | undefined, currentLog: string): LogEntry[] {
  const committed = new Set((committedLog ?? '').split('\n').map((line) => line.trim()));
  const fresh = currentLog.split('\n').filter((line) => line.trim() && !committed.has(line.trim()));
  return parseLog(fresh.join('\n')).entries;
}
