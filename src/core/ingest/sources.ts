import { sensitivePathReason } from '../files/sensitivePaths';
import { WIKI_DIR } from '../wiki/wiki';
import type { IngestSource } from './ingest';

/** Defaults for folder ingests: what to pick up and how much. */
export const INGEST_DEFAULTS = {
  glob: '**/*.{md,mdx,txt,ts,tsx,mts,cts,js,jsx,mjs,cjs,json,yaml,yml,toml}',
  exclude: '{**/node_modules/**,**/.git/**,**/.wiki/**,**/dist/**,**/out/**,**/build/**,**/coverage/**,**/*.min.js,**/package-lock.json}',
  maxFileBytes: 256 * 1024,
  maxFiles: 50,
  chunkTokens: 12_000,
  maxOutputTokens: 8192,
} as const;

/** A file turned into an ingest source, or the reason it was left out. */
export function toSource(relPath: string, bytes: Uint8Array, maxBytes: number, range?: { startLine: number; endLine: number }): IngestSource | { skipped: string } {
  if (relPath === WIKI_DIR || relPath.startsWith(`${WIKI_DIR}/`)) return { skipped: `${relPath} is part of the wiki itself` };
  if (relPath.startsWith('../') || relPath.startsWith('/')) return { skipped: `${relPath} is outside the workspace folder` };
  const sensitive = sensitivePathReason(relPath);
  if (sensitive) return { skipped: `${relPath} ${sensitive}; it is never sent to the model` };
  if (bytes.length > maxBytes) return { skipped: `${relPath} is ${Math.round(bytes.length / 1024)} KB, over the ${Math.round(maxBytes / 1024)} KB cap` };
  if (bytes.includes(0)) return { skipped: `${relPath} looks binary` };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { skipped: `${relPath} is not UTF-8 text` };
  }
  if (!text.trim()) return { skipped: `${relPath} is empty` };
  const ref = range ? `file:${relPath}#L${range.startLine}-L${range.endLine}` : `file:${relPath}`;
  return { ref, path: relPath, text, ...(range ? { firstLine: range.startLine } : {}) };
}
