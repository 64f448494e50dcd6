import type { Severity } from '../model';

/** Codes of drift issues; the diagnostics mapper and the quick fixes switch on these. */
export const DriftCode = {
  MissingFile: 'missing-file',
  MissingSymbol: 'missing-symbol',
  MovedSymbol: 'moved-symbol',
  RenamedSymbol: 'renamed-symbol',
  SignatureChanged: 'signature-changed',
  TypeChanged: 'type-changed',
  BodyChanged: 'body-changed',
  Unverified: 'unverified',
  OutsideWorkspace: 'outside-workspace',
  UnreadableFile: 'unreadable-file',
} as const;
export type DriftCode = (typeof DriftCode)[keyof typeof DriftCode];

export const DRIFT_CODES: readonly DriftCode[] = Object.values(DriftCode);

export const DEFAULT_DRIFT_SEVERITY: Record<DriftCode, Severity> = {
  'missing-file': 'error',
  'missing-symbol': 'error',
  'moved-symbol': 'warning',
  'renamed-symbol': 'warning',
  'signature-changed': 'warning',
  'type-changed': 'warning',
  'body-changed': 'info',
  unverified: 'info',
  'outside-workspace': 'error',
  'unreadable-file': 'error',
};

/** The message of an `unverified` citation, with what to do about it. */
export function unverifiedMessage(citation: string): string {
  return `${citation} has no recorded fingerprint yet. Check the page against the code, then mark it as reviewed (in VS Code, the quick fix; in a terminal, repo-wiki drift --review <page>).`;
}
