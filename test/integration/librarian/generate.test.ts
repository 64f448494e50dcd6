import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RepoWikiApi } from '../../../src/extension';
import type { GenerateReport } from '../../../src/core/generate/generate';
import type { GenerateHooks } from '../../../src/vscode/generate/generateFeature';
import type { IngestHooks } from '../../../src/vscode/ingest/ingestFeature';
import { activateExtension, startMockAnthropic, wikiFiles, workspaceRoot, type MockAnthropic } from '../helpers';

const API_KEY = 'sk-ant-generate-test-key';

const OUTLINE = {
  pages: Array.from({ length: 8 }, (_, i) => ({
    slug: `drafted-part-${i + 1}`,
    title: `Drafted part ${i + 1}`,
    topic: 'architecture',
    purpose: `What part ${i + 1} of the pipeline does.`,
    files: ['src/pipeline.ts'],
  })),
};

/** Two pages about different code, so ingest's validation does not take the second for a duplicate of the first. */
const PAGE_BODIES: Record<string, { summary: string; body: string; citation: string }> = {
  'drafted-part-1': { summary: 'How the pipeline runs the middleware in order.', body: '`src/pipeline.ts:Pipeline.run` runs each middleware in order, then the handler the router picked.', citation: 'src/pipeline.ts:Pipeline.run' },
  'drafted-part-2': { summary: 'How a thrown error becomes an HTTP response.', body: 'A thrown HttpError becomes a response with its status in `src/errors.ts:toErrorResponse`; anything else is a 500.', citation: 'src/errors.ts:toErrorResponse' },
};

function pagePlan(slug: string, title: string): string {
  const { summary, body, citation } = PAGE_BODIES[slug];
  return JSON.stringify({
    pages: [{ action: 'create', slug, title, topic: 'architecture', summary, tags: ['drafted'], body: `# ${title}\n\n${body}`, citations: [citation] }],
    corroborate: [],
    links: [],
  });
}

describe('Draft the wiki through the real SDK and the mock Messages API', () => {
  let root: string;
  let api: RepoWikiApi;
  let generate: GenerateHooks;
  let ingest: IngestHooks;
  let mock: MockAnthropic;
  let wikiBefore: Map<string, string>;
  const llm = () => vscode.workspace.getConfiguration('repoWiki.llm');

  before(async () => {
    root = workspaceRoot();
    api = await activateExtension();
    generate = api.hooks.generate as GenerateHooks;
    ingest = api.hooks.ingest as IngestHooks;
    mock = await startMockAnthropic({ validKey: API_KEY });
    await llm().update('baseUrl', mock.url, vscode.ConfigurationTarget.Global);
    process.env.ANTHROPIC_API_KEY = API_KEY;
    wikiBefore = wikiFiles(root);
  });

  after(async () => {
    generate.setOutlineChooser(undefined);
    ingest.setChangeChooser(undefined);
    delete process.env.ANTHROPIC_API_KEY;
    await llm().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await mock?.close();
    for (const name of wikiFiles(root).keys()) if (!wikiBefore.has(name)) fs.rmSync(path.join(root, '.wiki', name));
    for (const [name, text] of wikiBefore) fs.writeFileSync(path.join(root, '.wiki', name), text);
  });

  it('outline, then each chosen page reviewed: the accepted page is on disk, stamped; the declined one is not; one log line', async () => {
    mock.script(
      { text: JSON.stringify(OUTLINE), usage: { input_tokens: 3000, output_tokens: 400 } },
      { text: pagePlan('drafted-part-1', 'Drafted part 1'), usage: { input_tokens: 2000, output_tokens: 300 } },
      { text: pagePlan('drafted-part-2', 'Drafted part 2'), usage: { input_tokens: 2000, output_tokens: 300 } },
    );
    let offered: string[] = [];
    generate.setOutlineChooser(async (pages) => ((offered = pages.map((page) => page.slug)), ['drafted-part-1', 'drafted-part-2']));
    const reviewed: string[] = [];
    ingest.setChangeChooser(async (changes) => {
      reviewed.push(...changes.map((change) => `${change.kind}:${change.slug}`));
      return changes[0].slug === 'drafted-part-1' ? changes.map((change) => change.slug) : undefined;
    });

    const report = await vscode.commands.executeCommand<GenerateReport | undefined>('repoWiki.draftWiki');

    assert.deepEqual(offered, OUTLINE.pages.map((page) => page.slug), 'every page of the outline is offered');
    assert.deepEqual(reviewed, ['create:drafted-part-1', 'create:drafted-part-2'], 'each page is reviewed before it is written');
    assert.deepEqual(report?.written, ['drafted-part-1']);
    assert.deepEqual(report?.declined, ['drafted-part-2']);
    assert.equal(mock.requests.length, 3, 'the outline and two pages; nothing for the pages left unchecked');
    assert.match(mock.requests[0].body.messages[0].content, /package\.json|README/, 'the outline is drafted from the manifests');

    const pagesDir = path.join(root, '.wiki', 'pages');
    const page = fs.readFileSync(path.join(pagesDir, 'drafted-part-1.md'), 'utf8');
    const wiki = api.services.wikis.all().find((candidate) => candidate.root === root)!;
    const anchor = await api.services.cores.of(wiki).drift.currentAnchor({ path: 'src/pipeline.ts', symbol: 'Pipeline.run', outside: false });
    assert.ok(anchor && page.includes(`"src/pipeline.ts:Pipeline.run": "${anchor.split(' at:')[0]}`), page);
    assert.match(page, /sources: \["generate:drafted-part-1"\]/);
    assert.equal(fs.existsSync(path.join(pagesDir, 'drafted-part-2.md')), false, 'the declined page is not written');

    const entry = fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line)).at(-1);
    assert.equal(entry.op, 'generate');
    assert.deepEqual(entry.written, ['drafted-part-1']);
    assert.deepEqual(entry.declined, ['drafted-part-2']);
    assert.deepEqual(entry.tokens, { input: 7000, output: 1000 });
    assert.equal(entry.budget, 200000);
  });
});
