// The SCHEMA.md that `init` writes is the contract the librarian and the team follow: what it says
// of the product must stay what the product does. Each claim below is read from the template and
// compared with the code that enforces it, so a change to either fails here until both agree.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LANGUAGES } from '../../../src/adapters/treesitter/languages';
import { PLAN_LIMITS } from '../../../src/core/ingest/plan';
import { STATUSES, TOPICS } from '../../../src/core/model';
import { PAGE_LIMITS } from '../../../src/core/pages/frontmatter';
import { COMMANDS } from '../../../src/cli/commandTable';

const SCHEMA = fs.readFileSync(path.resolve(__dirname, '../../../../wiki-template/SCHEMA.md'), 'utf8');
const EXTENSION_LANGUAGE: Record<string, string> = {
  '.py': 'Python', '.go': 'Go', '.rs': 'Rust', '.java': 'Java', '.cs': 'C#', '.rb': 'Ruby', '.php': 'PHP',
  '.c': 'C', '.h': 'C', '.cc': 'C++', '.cpp': 'C++', '.cxx': 'C++', '.hh': 'C++', '.hpp': 'C++', '.hxx': 'C++',
};

/** The row of the frontmatter table for `field`. */
function fieldRow(field: string): string {
  const row = SCHEMA.split('\n').find((line) => line.startsWith(`| \`${field}\` |`));
  assert.ok(row, `SCHEMA.md has a row for ${field}`);
  return row;
}

describe('the wiki template\'s SCHEMA.md says what the product does', () => {
  it('names every language drift checks down to the symbol, and no other', () => {
    const sentence = /Files of the languages it parses \(([^)]+)\) are checked down to the symbol/.exec(SCHEMA.replace(/\s+/g, ' '));
    assert.ok(sentence, 'the sentence naming the languages');
    const named = new Set(sentence[1].split(',').map((name) => name.trim()));
    const parsed = new Set(['TypeScript', 'JavaScript']);
    for (const extension of Object.keys(LANGUAGES)) {
      assert.ok(EXTENSION_LANGUAGE[extension], `drift parses ${extension}: name its language here and in SCHEMA.md`);
      parsed.add(EXTENSION_LANGUAGE[extension]);
    }
    assert.deepEqual([...named].sort(), [...parsed].sort());
  });

  it('states the title and summary limits that pages are validated against and the librarian writes within', () => {
    assert.equal(PLAN_LIMITS.titleChars, PAGE_LIMITS.titleChars);
    assert.equal(PLAN_LIMITS.summaryChars, PAGE_LIMITS.summaryChars);
    assert.match(fieldRow('title'), new RegExp(`at most ${PAGE_LIMITS.titleChars} characters`));
    assert.match(fieldRow('summary'), new RegExp(`at most ${PAGE_LIMITS.summaryChars} characters`));
  });

  it('lists the topics and statuses pages may have', () => {
    assert.deepEqual([...fieldRow('topic').matchAll(/`([a-z]+)`/g)].map((m) => m[1]).filter((word) => word !== 'topic'), [...TOPICS]);
    assert.deepEqual([...fieldRow('status').matchAll(/`([a-z]+)`/g)].map((m) => m[1]).filter((word) => word !== 'status'), [...STATUSES]);
  });

  it('says renaming a page keeps its links, and names commands that exist', () => {
    assert.doesNotMatch(SCHEMA, /Renaming a page breaks links/);
    assert.match(SCHEMA.replace(/\s+/g, ' '), /every link to it is updated/);
    const names = new Set(COMMANDS.map((command) => command.name));
    for (const [, command] of SCHEMA.matchAll(/`repo-wiki ([a-z-]+(?: [a-z]+)?)/g)) {
      const known = names.has(command) || names.has(command.split(' ')[0]);
      assert.ok(known, `repo-wiki ${command} is a command`);
    }
  });
});
