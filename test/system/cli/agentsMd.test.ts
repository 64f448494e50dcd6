import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentsSection, SECTION_END, SECTION_START } from '../../../src/core/agents/agentsSection';
import { runCliProcess } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

const SECTION = agentsSection();

/** A workspace with a wiki (made by the CLI's own init). */
async function wikiWorkspace(): Promise<string> {
  const ws = tempDir('repo-wiki-agents-md-');
  const init = await runCliProcess(['init', '--workspace', ws], {});
  assert.equal(init.code, 0, init.stderr);
  return ws;
}

const agentsMd = (ws: string, ...args: string[]) => runCliProcess(['agents-md', '--workspace', ws, ...args], {});
const read = (ws: string, file: string) => fs.readFileSync(path.join(ws, file), 'utf8');

describe('repo-wiki agents-md', function () {
  this.timeout(30000);

  it('creates AGENTS.md when no instruction file exists, then changes nothing and says so; --check agrees', async () => {
    const ws = await wikiWorkspace();
    const stale = await agentsMd(ws, '--check');
    assert.equal(stale.code, 1, stale.stderr);
    assert.match(stale.stdout, /AGENTS\.md: would be created/);
    assert.ok(!fs.existsSync(path.join(ws, 'AGENTS.md')), '--check writes nothing');

    const created = await agentsMd(ws);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim(), 'Created AGENTS.md');
    assert.equal(read(ws, 'AGENTS.md'), `${SECTION}\n`);

    const written = fs.statSync(path.join(ws, 'AGENTS.md'));
    const again = await agentsMd(ws);
    assert.equal(again.code, 0);
    assert.equal(again.stdout.trim(), 'The Repo Wiki section is up to date in AGENTS.md; nothing written.');
    const after = fs.statSync(path.join(ws, 'AGENTS.md'));
    assert.equal(after.ino, written.ino, 'no write: an atomic write would have made a new file');
    assert.equal(after.mtimeMs, written.mtimeMs);
    assert.equal((await agentsMd(ws, '--check')).code, 0);
  });

  it('updates every instruction file that exists, keeping the text outside the markers, and no AGENTS.md is made', async () => {
    const ws = await wikiWorkspace();
    fs.writeFileSync(path.join(ws, 'CLAUDE.md'), `# Claude\r\n\r\nUse tabs.\r\n\r\n${SECTION_START}\r\nold words\r\n${SECTION_END}\r\n\r\nMore rules.\r\n`);
    fs.mkdirSync(path.join(ws, '.github'));
    fs.writeFileSync(path.join(ws, '.github/copilot-instructions.md'), 'Prefer small functions.');
    const dryRun = await agentsMd(ws, '--dry-run');
    assert.equal(dryRun.code, 0, dryRun.stderr);
    assert.match(dryRun.stdout, /CLAUDE\.md: would be updated\n\.github\/copilot-instructions\.md: would be given the section\n/);
    assert.ok(dryRun.stdout.includes(SECTION_START) && dryRun.stdout.includes('repo-wiki mcp --workspace .'));
    assert.match(read(ws, 'CLAUDE.md'), /old words/, '--dry-run writes nothing');

    const result = await agentsMd(ws);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.stdout.trim().split('\n'), ['Updated the section in CLAUDE.md', 'Added the section to .github/copilot-instructions.md']);
    assert.equal(read(ws, 'CLAUDE.md'), `# Claude\r\n\r\nUse tabs.\r\n\r\n${SECTION.split('\n').join('\r\n')}\r\n\r\nMore rules.\r\n`);
    assert.equal(read(ws, '.github/copilot-instructions.md'), `Prefer small functions.\n\n${SECTION}\n`);
    assert.ok(!fs.existsSync(path.join(ws, 'AGENTS.md')));
    assert.equal((await agentsMd(ws, '--check')).code, 0);
  });

  it('writes a CLAUDE.md that links to AGENTS.md once, through its target, and the link stays a link', async () => {
    const ws = await wikiWorkspace();
    fs.writeFileSync(path.join(ws, 'AGENTS.md'), '# Agents\n');
    fs.symlinkSync('AGENTS.md', path.join(ws, 'CLAUDE.md'));
    const result = await agentsMd(ws, '--format', 'json');
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { written: true, files: [{ path: 'AGENTS.md', outcome: 'added' }] });
    assert.ok(fs.lstatSync(path.join(ws, 'CLAUDE.md')).isSymbolicLink());
    assert.equal(read(ws, 'AGENTS.md'), `# Agents\n\n${SECTION}\n`);
  });

  it('refuses duplicated or unclosed markers with a message saying what to fix, and writes no file at all', async () => {
    const ws = await wikiWorkspace();
    fs.writeFileSync(path.join(ws, 'AGENTS.md'), '# Agents\n');
    const claude = `${SECTION}\n\n${SECTION}\n`;
    fs.writeFileSync(path.join(ws, 'CLAUDE.md'), claude);
    const duplicated = await agentsMd(ws);
    assert.equal(duplicated.code, 2);
    assert.match(duplicated.stderr, /CLAUDE\.md has "<!-- repo-wiki:start -->" on lines 1, \d+, so which section is Repo Wiki's is unclear\. Keep one start and one end marker/);
    assert.equal(read(ws, 'AGENTS.md'), '# Agents\n', 'the good file is not written either');
    assert.equal(read(ws, 'CLAUDE.md'), claude);

    fs.writeFileSync(path.join(ws, 'CLAUDE.md'), `my notes\n${SECTION_START}\nmore of my notes\n`);
    const unclosed = await agentsMd(ws, '--check');
    assert.equal(unclosed.code, 2);
    assert.match(unclosed.stderr, /CLAUDE\.md has "<!-- repo-wiki:start -->" on line 2 and no "<!-- repo-wiki:end -->" after it/);
  });

  it('refuses an instruction file that is a link out of the workspace', async () => {
    const ws = await wikiWorkspace();
    const outside = path.join(tempDir('repo-wiki-outside-'), 'notes.md');
    fs.writeFileSync(outside, 'private\n');
    fs.symlinkSync(outside, path.join(ws, 'AGENTS.md'));
    const result = await agentsMd(ws);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /AGENTS\.md/);
    assert.equal(fs.readFileSync(outside, 'utf8'), 'private\n');
  });
});
