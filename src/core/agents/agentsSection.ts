import { WikiError } from '../errors';

export const SECTION_START = '<!-- repo-wiki:start -->';
export const SECTION_END = '<!-- repo-wiki:end -->';

/** The instruction files agents read, relative to the workspace folder: every one that exists gets the section; AGENTS.md is created when none does. */
export const AGENT_FILES = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md'] as const;

/** The files to write: those of AGENT_FILES that exist, or AGENTS.md alone when none does. */
export function agentFilesToWrite(existing: readonly string[]): string[] {
  const present = AGENT_FILES.filter((file) => existing.includes(file));
  return present.length ? present : [AGENT_FILES[0]];
}

/**
 * The section, markers included, with `\n` line ends and no final line break. Every path in it is
 * relative to the workspace folder, where the files live, so the text is the same on every machine
 * (and `--check` in CI agrees with what a developer wrote).
 */
export function agentsSection(): string {
  return [
    SECTION_START,
    '<!-- Written by `repo-wiki agents-md`, which rewrites everything between these two markers: edit outside them. -->',
    '## Project wiki',
    '',
    'This repository keeps a wiki for people and agents in `.wiki/`, committed with the code: topic pages in',
    '`.wiki/pages/<slug>.md`, a catalog in `.wiki/index.md`, conventions in `.wiki/SCHEMA.md`. Read the pages',
    'on the area you work in before changing it. Link pages as `[[slug]]`; the index files are generated.',
    '',
    '- **Cite code** in pages inside backticks, paths relative to this folder: `path/to/file.ts:Symbol`,',
    '  `path/to/file.ts:Class.member`, or a whole file `path/to/file.ts`. These are checked against the code.',
    '  A line range (`path/to/file.ts#L10-L40`) is for reading code with the tools and quoting it in',
    '  answers; drift does not check it, so pages cite symbols.',
    '- **Check drift** after changing code a page cites: `repo-wiki drift` exits 1 when a citation no longer',
    '  resolves, and `repo-wiki drift --changed-since main` checks only what your branch changed. Fix the',
    '  page or the code; when a page is right again, `repo-wiki drift --review <slug>` records that.',
    '- **MCP server**: `repo-wiki mcp --workspace .`, run from this folder, serves the wiki\'s tools (search,',
    '  read pages and code, check drift, propose a page change) over stdio. Agents propose page changes;',
    '  a person accepts them (`repo-wiki proposals list`).',
    '',
    '`repo-wiki` is the Repo Wiki command line: on the PATH, in `node_modules/.bin`, or',
    '`node <clone of Repo Wiki>/dist/cli.js`.',
    SECTION_END,
  ].join('\n');
}

/** What writing the section does to one file. */
export interface SectionPlan {
  /** created: the file is new; added: the section appended to the file; updated: the section replaced; unchanged: already current. */
  outcome: 'created' | 'added' | 'updated' | 'unchanged';
  /** The whole file with the section in place (the file as it is when unchanged). */
  text: string;
}

/**
 * The file with `section` in place of its marked section, or appended when it has none. Only the
 * lines from the start marker to the end marker are replaced: everything else is kept byte for
 * byte. The section takes the file's line ends (CRLF files stay CRLF). A marker counts only as a
 * whole line, so a marker quoted in the middle of a line is text. Markers that do not make one
 * section (a start without an end, two starts) are refused: guessing could eat the user's text.
 */
export function spliceAgentsSection(existing: string | undefined, section: string, file: string): SectionPlan {
  if (existing === undefined) return { outcome: 'created', text: `${section}\n` };
  const eol = existing.includes('\r\n') ? '\r\n' : '\n';
  const body = section.split('\n').join(eol);
  const lines = existing.split('\n');
  const starts = markerLines(lines, SECTION_START);
  const ends = markerLines(lines, SECTION_END);
  if (starts.length > 1 || ends.length > 1) {
    const [marker, at] = starts.length > 1 ? [SECTION_START, starts] : [SECTION_END, ends];
    throw new WikiError('invalid-agents-section', `${file} has "${marker}" on lines ${at.map((i) => i + 1).join(', ')}, so which section is Repo Wiki's is unclear.`, 'Keep one start and one end marker (delete the other section), then run repo-wiki agents-md again.');
  }
  if (starts.length === 0 && ends.length === 0) {
    if (!existing.trim()) return { outcome: 'added', text: `${body}${eol}` };
    const ending = existing.endsWith('\n') ? '' : eol;
    return { outcome: 'added', text: `${existing}${ending}${eol}${body}${eol}` };
  }
  if (starts.length === 0 || ends.length === 0 || ends[0] < starts[0]) {
    const detail = starts.length === 0 ? `"${SECTION_END}" on line ${ends[0] + 1} and no start marker before it` : ends.length === 0 ? `"${SECTION_START}" on line ${starts[0] + 1} and no "${SECTION_END}" after it` : `"${SECTION_END}" on line ${ends[0] + 1}, before its start on line ${starts[0] + 1}`;
    throw new WikiError('invalid-agents-section', `${file} has ${detail}, so where the Repo Wiki section ends is unknown.`, `Put the section between a "${SECTION_START}" line and a "${SECTION_END}" line (or delete the stray marker), then run repo-wiki agents-md again.`);
  }
  // The end marker's own line end (or its absence at the end of the file) is kept as it was.
  const endLine = lines[ends[0]];
  const endCarriage = endLine.endsWith('\r') ? '\r' : '';
  const replaced = [...lines.slice(0, starts[0]), ...`${body}${endCarriage}`.split('\n'), ...lines.slice(ends[0] + 1)].join('\n');
  return replaced === existing ? { outcome: 'unchanged', text: existing } : { outcome: 'updated', text: replaced };
}

/** Indexes of the lines that are exactly `marker` (surrounding spaces and a CR aside). */
function markerLines(lines: readonly string[], marker: string): number[] {
  return lines.flatMap((line, i) => (line.trim() === marker ? [i] : []));
}
