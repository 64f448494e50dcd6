import { WikiError } from '../errors';
import { PAGE_LIMITS } from '../pages/frontmatter';

/** `.wiki/generate.json`: what the user asks of a generated wiki (as DeepWiki's `.devin/wiki.json`). */
export const STEERING_FILE = 'generate.json';

/** A page the outline must hold. */
export interface RequiredPage {
  title: string;
  purpose: string;
  /** Files (or folders) the page covers; the librarian picks them when none are given. */
  files: string[];
}

export interface Steering {
  /** Free text for the librarian: audience, emphasis, what to leave out. */
  notes: string;
  pages: RequiredPage[];
}

export const NO_STEERING: Steering = { notes: '', pages: [] };

const LIMITS = { notesChars: 4000, pages: 30, purposeChars: 300, files: 40, fileChars: 300 } as const;

/**
 * Reads `.wiki/generate.json`, e.g. `{ "notes": "…", "pages": [{ "title", "purpose", "files"? }] }`.
 * Throws a WikiError naming the first bad field (`pages[1].title`).
 */
export function parseSteering(text: string): Steering {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid('$', `is not valid JSON (${(error as Error).message})`);
  }
  if (!isRecord(data)) throw invalid('$', 'must be a JSON object with "notes" and "pages"');
  for (const key of Object.keys(data)) if (key !== 'notes' && key !== 'pages') throw invalid(key, 'is not a field of generate.json (it takes "notes" and "pages")');
  const notes = data.notes ?? '';
  if (typeof notes !== 'string' || notes.length > LIMITS.notesChars) throw invalid('notes', `must be text of at most ${LIMITS.notesChars} characters`);
  const pages = data.pages ?? [];
  if (!Array.isArray(pages) || pages.length > LIMITS.pages) throw invalid('pages', `must be a list of at most ${LIMITS.pages} pages`);
  const titles = new Set<string>();
  return {
    notes: notes.trim(),
    pages: pages.map((page, i) => {
      const at = `pages[${i}]`;
      if (!isRecord(page)) throw invalid(at, 'must be an object with "title", "purpose" and optionally "files"');
      for (const key of Object.keys(page)) if (!['title', 'purpose', 'files'].includes(key)) throw invalid(`${at}.${key}`, 'is not a field of a page (it takes "title", "purpose" and "files")');
      const title = oneLine(page.title, `${at}.title`, PAGE_LIMITS.titleChars);
      if (titles.has(title.toLowerCase())) throw invalid(`${at}.title`, `repeats the title "${title}"`);
      titles.add(title.toLowerCase());
      const purpose = oneLine(page.purpose, `${at}.purpose`, LIMITS.purposeChars);
      const files = page.files ?? [];
      if (!Array.isArray(files) || files.length > LIMITS.files || !files.every((file) => typeof file === 'string' && file.trim() && file.length <= LIMITS.fileChars)) {
        throw invalid(`${at}.files`, `must be a list of at most ${LIMITS.files} workspace-relative paths`);
      }
      return { title, purpose, files: files.map((file: string) => file.trim()) };
    }),
  };
}

function oneLine(value: unknown, at: string, max: number): string {
  if (typeof value !== 'string' || !value.trim() || /[\r\n]/.test(value.trim()) || value.length > max) throw invalid(at, `must be one line of at most ${max} characters`);
  return value.trim();
}

function invalid(field: string, message: string): WikiError {
  return new WikiError('invalid-generate-file', `.wiki/${STEERING_FILE}: ${field} ${message}.`, `Fix ${field} in .wiki/${STEERING_FILE}, or remove the file, then run repo-wiki generate again.`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
