import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// The README is also the Marketplace page: it stays short, and it and the user docs link only to files that exist.

const README_MAX_LINES = 160;


/** The markdown without fenced code blocks (their lines are kept empty, so line numbers stay). */
function withoutFences(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split(/\r?\n/).map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker) {
      fence = marker;
      return '';
    }
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      return '';
    }
    return line;
  });
}

/** Inline code spans blanked out (they may span lines), so a link inside backticks is not a link. */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' '));
}

interface Link {
  target: string;
  line: number;
}

/** The link and image targets of a markdown file: inline, reference definitions and HTML src/href. */
function links(markdown: string): Link[] {
  const text = withoutCodeSpans(withoutFences(markdown).join('\n'));
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const found: Link[] = [];
  for (const m of text.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
    found.push({ target: m[1].replace(/^<|>$/g, ''), line: lineOf(m.index ?? 0) });
  }
  for (const m of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm)) found.push({ target: m[1].replace(/^<|>$/g, ''), line: lineOf(m.index ?? 0) });
  for (const m of text.matchAll(/<(?:a|img)\b[^>]*?\s(?:href|src)="([^"]+)"/gi)) found.push({ target: m[1], line: lineOf(m.index ?? 0) });
  return found;
}

/** GitHub's heading anchors: the heading's text lower-cased, punctuation dropped, spaces as hyphens; repeats get -1, -2… */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of withoutFences(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[`*]/g, '');
    const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** The repository root, from out/test/unit/docs/ where the compiled test runs. */
const ROOT = path.resolve(__dirname, '../../../..');
const README = path.join(ROOT, 'README.md');

/** README.md, CONTRIBUTING.md and docs/*.md. */
function documentationFiles(): string[] {
  const docs = path.join(ROOT, 'docs');
  const pages = fs.existsSync(docs) ? fs.readdirSync(docs).filter((name) => name.endsWith('.md')).sort().map((name) => path.join(docs, name)) : [];
  return [README, path.join(ROOT, 'CONTRIBUTING.md'), ...pages];
}

describe('README and the user docs', () => {
  it(`README.md is at most ${README_MAX_LINES} lines (detail goes to docs/ and CONTRIBUTING.md)`, () => {
    const lines = fs.readFileSync(README, 'utf8').replace(/\r?\n$/, '').split(/\r?\n/).length;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`);
  });

  it('README.md, CONTRIBUTING.md and docs/ exist', () => {
    for (const file of documentationFiles()) assert.ok(fs.existsSync(file), `${path.relative(ROOT, file)} is missing`);
    assert.ok(documentationFiles().length > 2, 'docs/ has no pages');
  });

  it('every relative link points to a file that exists (and a heading that exists, in markdown)', () => {
    const broken: string[] = [];
    for (const file of documentationFiles()) {
      const where = path.relative(ROOT, file);
      const markdown = fs.readFileSync(file, 'utf8');
      for (const { target, line } of links(markdown)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, command:…
        const hashAt = target.indexOf('#');
        const pathPart = (hashAt >= 0 ? target.slice(0, hashAt) : target).replace(/\?.*$/, '');
        const fragment = hashAt >= 0 ? decodeURIComponent(target.slice(hashAt + 1)) : '';
        const resolved = pathPart ? path.resolve(path.dirname(file), decodeURIComponent(pathPart)) : file;
        const relative = path.relative(ROOT, resolved);
        if (relative.startsWith('..') || path.isAbsolute(relative)) {
          broken.push(`${where}:${line}: ${target} leads out of the repository`);
        } else if (!fs.existsSync(resolved)) {
          broken.push(`${where}:${line}: ${target} (no ${relative})`);
        } else if (fragment && resolved.endsWith('.md') && !anchors(fs.readFileSync(resolved, 'utf8')).has(fragment)) {
          broken.push(`${where}:${line}: ${target} (no heading #${fragment} in ${relative})`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });
});
