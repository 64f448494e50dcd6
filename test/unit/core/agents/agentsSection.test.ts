import * as assert from 'node:assert/strict';
import { agentFilesToWrite, agentsSection, SECTION_END, SECTION_START, spliceAgentsSection } from '../../../../src/core/agents/agentsSection';
import { WikiError } from '../../../../src/core/errors';

const SECTION = agentsSection();

describe('the Repo Wiki section of agent instruction files', () => {
  it('tells agents where the wiki is, how to cite, how to check drift and how to start the MCP server', () => {
    assert.ok(SECTION.startsWith(`${SECTION_START}\n`) && SECTION.endsWith(`\n${SECTION_END}`));
    for (const needle of ['`.wiki/pages/<slug>.md`', '`path/to/file.ts:Symbol`', '`path/to/file.ts#L10-L40`', '`repo-wiki drift`', '--changed-since', '`repo-wiki mcp --workspace .`']) {
      assert.ok(SECTION.includes(needle), needle);
    }
  });

  it('goes into every instruction file that exists, or a new AGENTS.md when none does', () => {
    assert.deepEqual(agentFilesToWrite([]), ['AGENTS.md']);
    assert.deepEqual(agentFilesToWrite(['CLAUDE.md']), ['CLAUDE.md']);
    assert.deepEqual(agentFilesToWrite(['.github/copilot-instructions.md', 'CLAUDE.md', 'AGENTS.md']), ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md']);
  });

  it('creates a missing file, appends to one without markers, and then leaves it unchanged', () => {
    assert.deepEqual(spliceAgentsSection(undefined, SECTION, 'AGENTS.md'), { outcome: 'created', text: `${SECTION}\n` });
    const added = spliceAgentsSection('# Our rules\n\nRun the tests.', SECTION, 'AGENTS.md');
    assert.equal(added.outcome, 'added');
    assert.equal(added.text, `# Our rules\n\nRun the tests.\n\n${SECTION}\n`);
    assert.deepEqual(spliceAgentsSection(added.text, SECTION, 'AGENTS.md'), { outcome: 'unchanged', text: added.text });
    assert.equal(spliceAgentsSection('  \n', SECTION, 'AGENTS.md').text, `${SECTION}\n`);
  });

  it('replaces only what lies between the markers, every byte outside kept', () => {
    const before = '\uFEFF# Rules\n  trailing spaces  \n\n';
    const after = '\n## Ours\nno final newline';
    const existing = `${before}${SECTION_START}\nan old section\n${SECTION_END}${after}`;
    const { outcome, text } = spliceAgentsSection(existing, SECTION, 'CLAUDE.md');
    assert.equal(outcome, 'updated');
    assert.equal(text, `${before}${SECTION}${after}`);
    assert.equal(spliceAgentsSection(text, SECTION, 'CLAUDE.md').outcome, 'unchanged');
  });

  it('keeps a CRLF file CRLF, section included, and finds its markers', () => {
    const existing = `# Rules\r\n\r\n${SECTION_START}\r\nold\r\n${SECTION_END}\r\nafter\r\n`;
    const { outcome, text } = spliceAgentsSection(existing, SECTION, 'AGENTS.md');
    assert.equal(outcome, 'updated');
    assert.equal(text, `# Rules\r\n\r\n${SECTION.split('\n').join('\r\n')}\r\nafter\r\n`);
    assert.doesNotMatch(text, /[^\r]\n/);
    assert.equal(spliceAgentsSection(text, SECTION, 'AGENTS.md').outcome, 'unchanged');
    const appended = spliceAgentsSection('# Rules\r\n', SECTION, 'AGENTS.md').text;
    assert.equal(appended, `# Rules\r\n\r\n${SECTION.split('\n').join('\r\n')}\r\n`);
  });

  it('treats a marker quoted inside a line as text', () => {
    const existing = `Our tool writes \`${SECTION_START}\` sections.\n`;
    const { outcome, text } = spliceAgentsSection(existing, SECTION, 'AGENTS.md');
    assert.equal(outcome, 'added');
    assert.ok(text.startsWith(existing));
  });

  it('refuses markers that do not make one section, naming the file and lines', () => {
    const refused = (text: string, message: RegExp) =>
      assert.throws(() => spliceAgentsSection(text, SECTION, 'AGENTS.md'), (error: unknown) => error instanceof WikiError && error.code === 'invalid-agents-section' && message.test(error.userMessage));
    refused(`# Rules\n${SECTION_START}\nmy own notes\n`, /AGENTS\.md has "<!-- repo-wiki:start -->" on line 2 and no "<!-- repo-wiki:end -->" after it.*delete the stray marker/);
    refused(`x\n${SECTION_END}\n`, /"<!-- repo-wiki:end -->" on line 2 and no start marker before it/);
    refused(`${SECTION_END}\n${SECTION_START}\n`, /on line 1, before its start on line 2/);
    refused(`${SECTION}\n\n${SECTION}\n`, /on lines 1, \d+, so which section is Repo Wiki's is unclear.*Keep one start and one end marker/);
    refused(`${SECTION_START}\na\n${SECTION_END}\n${SECTION_END}\n`, /"<!-- repo-wiki:end -->" on lines 3, 4/);
  });
});
