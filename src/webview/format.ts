// Small pure helpers for the chat view (no DOM).
import { escapeRegExp } from '../shared/regExpText';

/** `text` cut to at most `max` characters, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** A request id the host accepts: /^[A-Za-z0-9_-]{1,64}$/. */
export function newRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A short, relative date: "just now", "5 min ago", "3 h ago", "yesterday", "Mon", "12 Mar", "12 Mar 2024". */
export function relativeDate(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const ago = now.getTime() - date.getTime();
  if (ago < MINUTE) return 'just now';
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min ago`;
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  if (date.getTime() >= startOfToday) return `${Math.floor(ago / HOUR)} h ago`;
  if (date.getTime() >= startOfToday - DAY) return 'yesterday';
  if (date.getTime() >= startOfToday - 6 * DAY) return date.toLocaleDateString(undefined, { weekday: 'short' });
  if (date.getFullYear() === now.getFullYear()) return date.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
  return date.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
}

/** The full local date and time, for tooltips. */
export function fullDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString();
}

/** The last segment of a path. */
export function baseName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;
}

/** "L12" or "L12–30". */
export function lineRange(start: number, end: number): string {
  return start === end ? `L${start}` : `L${start}–${end}`;
}

/** Splits `text` into plain and matching parts for the words of `query` (case-insensitive). */
export function highlightParts(text: string, query: string): { text: string; match: boolean }[] {
  const words = [...new Set(query.toLowerCase().split(/\s+/).map((w) => w.replace(/^["'*]+|["'*]+$/g, '')).filter((w) => w.length > 1))].slice(0, 10);
  if (!words.length) return [{ text, match: false }];
  const pattern = new RegExp(words.map(escapeRegExp).join('|'), 'gi');
  const parts: { text: string; match: boolean }[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    const index = m.index ?? 0;
    if (index > last) parts.push({ text: text.slice(last, index), match: false });
    parts.push({ text: m[0], match: true });
    last = index + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), match: false });
  return parts;
}
