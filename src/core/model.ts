/** Plain data shared by the core and its front ends. Positions are 0-based, like LSP. */

export const TOPICS = [
  'architecture', 'patterns', 'gotchas', 'testing', 'dependencies', 'decisions', 'conversations', 'other',
] as const;
export type Topic = (typeof TOPICS)[number];

export const STATUSES = ['active', 'stale', 'superseded', 'archived'] as const;
export type PageStatus = (typeof STATUSES)[number];

/** Archived pages stay on disk and in git, but are out of service: not retrieved, listed or checked. */
export function isArchived(page: { frontmatter: { status?: PageStatus } }): boolean {
  return page.frontmatter.status === 'archived';
}

export interface PageFrontmatter {
  title: string;
  topic: Topic;
  summary: string;
  status: PageStatus;
  tags: string[];
  created: string; // YYYY-MM-DD
  updated: string; // YYYY-MM-DD
  corroborations: number;
  sources: string[];
  anchors: Record<string, string>;
  superseded_by?: string;
  stale_reason?: string;
}

export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

export type Severity = 'error' | 'warning' | 'info';

export interface WikiLink {
  /** The page slug linked to (without a `#heading`). */
  target: string;
  /** The heading named after `#` in `[[slug#heading]]`. */
  heading?: string;
  label?: string;
  /** Range of the whole `[[...]]` in the page file. */
  range: Range;
}

export interface LintIssue {
  code: string;
  severity: Severity;
  message: string;
  /** Workspace-relative page path, e.g. `.wiki/pages/foo.md`. */
  page: string;
  range: Range;
  data?: Record<string, string>;
}

export interface WikiPage {
  slug: string;
  /** Workspace-relative path with forward slashes. */
  relPath: string;
  /** Frontmatter fields that parsed and validated; invalid ones are absent and reported in `problems`. */
  frontmatter: Partial<PageFrontmatter>;
  /** Frontmatter keys outside the schema, kept as they are whenever the page is rewritten. */
  extraFields: Record<string, unknown>;
  /** False when the file could not be read as text (binary, too large, not UTF-8). */
  readable: boolean;
  /** Whether the page parsed and validated fully. */
  valid: boolean;
  body: string;
  /** 0-based line in the file where the body starts. */
  bodyStartLine: number;
  links: WikiLink[];
  /** 0-based line of each top-level frontmatter key. */
  fieldLines: Record<string, number>;
  /** Problems found while reading this page alone (encoding, YAML, fields, slug). */
  problems: LintIssue[];
}

export interface IndexEntry {
  slug: string;
  path: string;
  title: string;
  topic: Topic;
  summary: string;
  status: PageStatus;
  tags: string[];
  updated: string;
  corroborations: number;
  links: string[];
  superseded_by?: string;
}

export interface WikiIndex {
  version: 1;
  pages: IndexEntry[];
}

export interface LogEntry {
  ts: string;
  op: string;
  pages?: string[];
  [key: string]: unknown;
}
