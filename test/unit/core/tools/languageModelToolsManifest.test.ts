import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createWikiTools } from '../../../../src/core/tools';
import { proposePageChangeTool } from '../../../../src/core/tools/proposePageChange';

interface DeclaredTool { name: string; modelDescription: string; inputSchema: unknown; toolReferenceName: string; tags: string[] }

describe('the language model tools package.json declares', () => {
  const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../../../package.json'), 'utf8')) as { contributes: { languageModelTools: DeclaredTool[] } };
  const declared = manifest.contributes.languageModelTools;
  // The definitions' metadata needs no ports: only running a tool does.
  const tools = [...createWikiTools({} as never), proposePageChangeTool({} as never, 'vscode:agent')];

  it('are the tool layer\'s seven tools and propose_page_change, with the same names, model descriptions and input schemas', () => {
    assert.deepEqual(declared.map((tool) => tool.name), tools.map((tool) => tool.name));
    for (const tool of tools) {
      const entry = declared.find((candidate) => candidate.name === tool.name)!;
      assert.equal(entry.modelDescription, tool.description, tool.name);
      assert.deepEqual(entry.inputSchema, tool.inputSchema, tool.name);
    }
  });

  it('can each be referenced in a prompt by a distinct name, and are tagged for agents looking for project knowledge', () => {
    assert.equal(new Set(declared.map((tool) => tool.toolReferenceName)).size, declared.length);
    for (const tool of declared) assert.ok(tool.tags.includes('repo-wiki') && tool.tags.includes('project-knowledge'), tool.name);
  });
});
