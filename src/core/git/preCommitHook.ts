/** The pre-commit hook that runs `repo-wiki drift` on commits touching the wiki or cited files. */

const BEGIN = '# >>> repo-wiki drift check >>>';
const END = '# <<< repo-wiki drift check <<<';

/** `text` as one single-quoted POSIX shell word. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The hook's block. `folder` is the workspace folder relative to the repository root ('' when they
 * are the same); `fallbackCli` is a `node …/cli.js` command for when repo-wiki is not installed.
 */
export function hookBlock(folder: string, fallbackCli?: string): string {
  const quote = shellQuote;
  return [
    BEGIN,
    '# Installed by Repo Wiki. Checks code citations in .wiki/ when a commit touches the wiki or a',
    '# file a page cites. Skip once with: git commit --no-verify',
    'repo_wiki_check() (',
    `  cd ${quote(folder || '.')} 2>/dev/null || exit 0`,
    '  [ -d .wiki/pages ] || exit 0',
    '  touched=$(git diff --cached --name-only --relative --diff-filter=ACDMR | while IFS= read -r file; do',
    '    case "$file" in',
    '      .wiki/*) echo 1; break ;;',
    '      *) if grep -rqsF -- "\\`$file" .wiki/pages; then echo 1; break; fi ;;',
    '    esac',
    '  done)',
    '  [ -n "$touched" ] || exit 0',
    '  if command -v repo-wiki >/dev/null 2>&1; then repo-wiki drift --format text',
    '  elif [ -x node_modules/.bin/repo-wiki ]; then node_modules/.bin/repo-wiki drift --format text',
    ...(fallbackCli ? [`  elif [ -f ${quote(fallbackCli)} ]; then node ${quote(fallbackCli)} drift --format text`] : []),
    '  else echo "repo-wiki: not installed (npm install --save-dev repo-wiki); the drift check is skipped." >&2',
    '  fi',
    ')',
    'repo_wiki_check || { echo "repo-wiki: the wiki has drift errors (listed above). Fix them, or commit with --no-verify." >&2; exit 1; }',
    END,
  ].join('\n');
}

// A shebang of a POSIX-like shell, directly or through env: our block is shell code.
const SHELL_SHEBANG = /^#!\s*(?:\/usr\/bin\/env\s+(?:-S\s+)?)?(?:\S*\/)?(?:sh|bash|dash|zsh|ksh|ash)(?:\s|$)/;

/**
 * The hook file with our block installed: a new script, our block replaced in place, or our block
 * placed after the shebang of someone else's shell hook so both run. Never drops existing lines; a
 * hook in another language (`#!/usr/bin/env python3`) is left alone: `foreign`, with its shebang.
 */
export function installHook(existing: string | undefined, block: string): { text: string; action: 'created' | 'updated' | 'chained' | 'unchanged' | 'foreign'; shebang?: string } {
  if (existing === undefined || !existing.trim()) return { text: `#!/bin/sh\n${block}\n`, action: 'created' };
  const start = existing.indexOf(BEGIN);
  const end = existing.indexOf(END);
  if (start >= 0 && end > start) {
    const text = existing.slice(0, start) + block + existing.slice(end + END.length);
    return { text, action: text === existing ? 'unchanged' : 'updated' };
  }
  const lines = existing.split('\n');
  if (lines[0].startsWith('#!') && !SHELL_SHEBANG.test(lines[0])) return { text: existing, action: 'foreign', shebang: lines[0] };
  const shebang = lines[0].startsWith('#!') ? [lines.shift()!] : ['#!/bin/sh'];
  return { text: [...shebang, block, ...lines].join('\n'), action: 'chained' };
}
