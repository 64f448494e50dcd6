import type { Severity } from '../model';

/** Codes of deterministic lint issues; front ends switch on these. */
export const LintCode = {
  PageTooLarge: 'page-too-large',
  PageBinary: 'page-binary',
  PageEncoding: 'page-encoding',
  PageNotRegular: 'page-not-regular',
  PageOutsideWiki: 'page-outside-wiki',
  SchemaTooLarge: 'schema-too-large',
  NotAPage: 'not-a-page',
  InvalidSlug: 'invalid-slug',
  FrontmatterMissing: 'frontmatter-missing',
  FrontmatterYaml: 'frontmatter-invalid-yaml',
  FieldMissing: 'field-missing',
  FieldInvalid: 'field-invalid',
  BrokenLink: 'broken-link',
  OrphanPage: 'orphan-page',
  DuplicateTitle: 'duplicate-title',
  LinksToStale: 'links-to-stale',
  LinksToSuperseded: 'links-to-superseded',
  LinksToArchived: 'links-to-archived',
  SupersededByMissing: 'superseded-by-missing',
  IndexOutOfDate: 'index-out-of-date',
} as const;
export type LintCode = (typeof LintCode)[keyof typeof LintCode];

export const DEFAULT_SEVERITY: Record<LintCode, Severity> = {
  'page-too-large': 'error',
  'page-binary': 'error',
  'page-encoding': 'error',
  'page-not-regular': 'error',
  'page-outside-wiki': 'error',
  'schema-too-large': 'warning',
  'not-a-page': 'warning',
  'invalid-slug': 'error',
  'frontmatter-missing': 'error',
  'frontmatter-invalid-yaml': 'error',
  'field-missing': 'error',
  'field-invalid': 'error',
  'broken-link': 'error',
  'orphan-page': 'warning',
  'duplicate-title': 'warning',
  'links-to-stale': 'warning',
  'links-to-superseded': 'warning',
  'links-to-archived': 'info',
  'superseded-by-missing': 'error',
  'index-out-of-date': 'error',
};
