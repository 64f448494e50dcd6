import { STATUSES, TOPICS, type PageFrontmatter, type PageStatus, type Topic } from '../model';
import { isValidSlug } from './slug';

export interface FieldProblem {
  field: string;
  code: 'field-missing' | 'field-invalid';
  message: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** The page format's limits: pages are validated against them, the librarian writes within them, and SCHEMA.md states them. */
export const PAGE_LIMITS = { titleChars: 200, summaryChars: 400 } as const;

/** Frontmatter keys in the order pages are written. */
export const FIELD_ORDER = [
  'title', 'topic', 'summary', 'status', 'tags', 'created', 'updated',
  'corroborations', 'sources', 'anchors', 'superseded_by', 'stale_reason',
] as const;

/** Validates raw YAML data against the page schema; keeps the valid fields and lists the rest. */
export function validateFrontmatter(data: Record<string, unknown>): {
  frontmatter: Partial<PageFrontmatter>;
  problems: FieldProblem[];
} {
  const fm: Partial<PageFrontmatter> = {};
  const problems: FieldProblem[] = [];
  const missing = (field: string) =>
    problems.push({ field, code: 'field-missing', message: `Frontmatter is missing the required field "${field}".` });
  const invalid = (field: string, expected: string) =>
    problems.push({ field, code: 'field-invalid', message: `Frontmatter field "${field}" must be ${expected}.` });
  const has = (field: string) => data[field] !== undefined && data[field] !== null;

  const text = (field: 'title' | 'summary', max: number) => {
    if (!has(field)) return missing(field);
    const value = data[field];
    if (typeof value !== 'string' || !value.trim() || value.length > max || value.includes('\n')) {
      return invalid(field, `a non-empty single line of at most ${max} characters`);
    }
    fm[field] = value.trim();
  };
  text('title', PAGE_LIMITS.titleChars);
  text('summary', PAGE_LIMITS.summaryChars);

  if (!has('topic')) missing('topic');
  else if (!TOPICS.includes(data.topic as Topic)) invalid('topic', `one of ${TOPICS.join(', ')}`);
  else fm.topic = data.topic as Topic;

  if (!has('status')) missing('status');
  else if (!STATUSES.includes(data.status as PageStatus)) invalid('status', `one of ${STATUSES.join(', ')}`);
  else fm.status = data.status as PageStatus;

  for (const field of ['created', 'updated'] as const) {
    if (!has(field)) missing(field);
    else {
      const date = toDate(data[field]);
      if (date) fm[field] = date;
      else invalid(field, 'a date written YYYY-MM-DD');
    }
  }

  for (const field of ['tags', 'sources'] as const) {
    if (!has(field)) fm[field] = [];
    else if (!Array.isArray(data[field]) || !(data[field] as unknown[]).every((v) => typeof v === 'string')) {
      invalid(field, 'a list of strings');
    } else fm[field] = [...(data[field] as string[])];
  }

  if (!has('corroborations')) fm.corroborations = 0;
  else if (!Number.isInteger(data.corroborations) || (data.corroborations as number) < 0) {
    invalid('corroborations', 'a whole number of 0 or more');
  } else fm.corroborations = data.corroborations as number;

  if (!has('anchors')) fm.anchors = {};
  else if (!isStringMap(data.anchors)) invalid('anchors', 'a map from citation to fingerprint string');
  // No prototype: a table, not a shape (a hidden class per page, each keyed by its own citations, costs more than the table).
  else fm.anchors = Object.assign(Object.create(null) as Record<string, string>, data.anchors);

  if (has('superseded_by')) {
    if (typeof data.superseded_by !== 'string' || !isValidSlug(data.superseded_by)) invalid('superseded_by', 'a page slug');
    else fm.superseded_by = data.superseded_by;
  } else if (fm.status === 'superseded') {
    problems.push({
      field: 'superseded_by',
      code: 'field-missing',
      message: 'A superseded page needs "superseded_by" naming the page that replaces it.',
    });
  }

  if (has('stale_reason')) {
    if (typeof data.stale_reason !== 'string') invalid('stale_reason', 'a string');
    else fm.stale_reason = data.stale_reason;
  }
  return { frontmatter: fm, problems };
}

function toDate(value: unknown): string | undefined {
  // YAML turns an unquoted 2026-11-22 into a Date.
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString().slice(0, 10);
  if (typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value))) return value;
  return undefined;
}

function isStringMap(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

/**
 * YAML for the schema's fields in a stable order and a diff-friendly style: plain scalars where
 * they are unambiguous, JSON-quoted otherwise, short lists inline, anchors one per line.
 */
export function serializeFrontmatter(fm: PageFrontmatter): string {
  const lines: string[] = [];
  for (const key of FIELD_ORDER) {
    const value = fm[key];
    if (value === undefined) continue;
    if (key === 'anchors') {
      const entries = Object.entries(value as Record<string, string>);
      lines.push(entries.length ? 'anchors:' : 'anchors: {}');
      for (const [citation, anchor] of entries) lines.push(`  ${JSON.stringify(citation)}: ${JSON.stringify(anchor)}`);
    } else if (Array.isArray(value)) {
      lines.push(`${key}: [${value.map((item) => scalar(item, true)).join(', ')}]`);
    } else {
      lines.push(`${key}: ${typeof value === 'number' ? value : scalar(String(value))}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const PLAIN = /^[A-Za-z0-9(][^:#\[\]{}"'`&*!|>%@\n]*$/;
const AMBIGUOUS = /^(true|false|yes|no|on|off|null|~|[-+]?[\d.]+(e[-+]?\d+)?|0x[\da-f]+|\d{4}-\d{2}-\d{2}.+)$/i;

/** Commas are only special inside an inline list. */
function scalar(text: string, inFlow = false): string {
  const plain = PLAIN.test(text) && !AMBIGUOUS.test(text) && text === text.trim() && !(inFlow && text.includes(','));
  return plain ? text : JSON.stringify(text);
}
