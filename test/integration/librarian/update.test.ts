import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RepoWikiApi } from '../../../src/extension';
import type { UpdateReport } from '../../../src/core/generate/update';
import type { IngestHooks } from '../../../src/vscode/ingest/ingestFeature';
import { activateExtension, startMockAnthropic, textOf, workspaceRoot, type MockAnthropic } from '../helpers';

const API_KEY = 'sk-ant-update-test-key';
const SLUG = 'errors-become-responses-at-the-edge';
/** Cites the class of the changed method: once stamped (a class's anchor records its shape, not its members' bodies) it does not drift. */
const CLASS_PAGE = 'testing-handlers-in-process';
const METHOD_LINE = '    todo.done = done;\n';
const ADDED_LINE = '    todo.completedAt = Date.now();\n';

// The demo workspace is a git repository committed as it was copied (test/harness/ext-tests.cjs).
describe('Propose updates for drifted pages through the real SDK and the mock Messages API', () => {
  let root: string;
  let api: RepoWikiApi;
  let ingest: IngestHooks;
  let mock: MockAnthropic;
  const todos = () => path.join(root, 'src', 'todos.ts');
  const pageFile = () => path.join(root, '.wiki', 'pages', `${SLUG}.md`);
  const restore = new Map<string, string>();
  const llm = () => vscode.workspace.getConfiguration('repoWiki.llm');

  before(async () => {
    root = workspaceRoot();
    api = await activateExtension();
    ingest = api.hooks.ingest as IngestHooks;
    mock = await startMockAnthropic({ validKey: API_KEY });
    await llm().update('baseUrl', mock.url, vscode.ConfigurationTarget.Global);
    process.env.ANTHROPIC_API_KEY = API_KEY;
    for (const file of [todos(), pageFile(), path.join(root, '.wiki', 'pages', `${CLASS_PAGE}.md`), path.join(root, '.wiki', 'log.jsonl'), path.join(root, '.wiki', 'index.json'), path.join(root, '.wiki', 'index.md')]) restore.set(file, fs.readFileSync(file, 'utf8'));
  });

  after(async () => {
    ingest.setChangeChooser(undefined);
    delete process.env.ANTHROPIC_API_KEY;
    await llm().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await mock?.close();
    for (const [file, text] of restore) fs.writeFileSync(file, text);
  });

  it('sends only the page whose cited method changed, with the diff; the reviewed edit is written and re-stamped', async () => {
    const wiki = api.services.wikis.all().find((candidate) => candidate.root === root)!;
    const { drift } = api.services.cores.of(wiki);
    // The pages are verified at HEAD, then the method's body changes: "what changed" has a base.
    await drift.stamp(SLUG);
    await drift.stamp(CLASS_PAGE);
    assert.match(fs.readFileSync(pageFile(), 'utf8'), /"src\/todos\.ts:TodoStore\.complete": "sig:[0-9a-f]{8} body:[0-9a-f]{8} at:[0-9a-f]{12}"/);
    const source = fs.readFileSync(todos(), 'utf8');
    assert.ok(source.includes(METHOD_LINE), 'demo/src/todos.ts changed: update this test');
    fs.writeFileSync(todos(), source.replace(METHOD_LINE, METHOD_LINE + ADDED_LINE));

    const page = (await wiki.readPage(SLUG))!;
    const edited = page.body.replace('throws a 404 for an unknown id,', 'throws a 404 for an unknown id (and stamps `completedAt` on the todo it completes),');
    assert.notEqual(edited, page.body);
    mock.script({
      text: JSON.stringify({
        pages: [{ action: 'update', slug: SLUG, title: page.frontmatter.title, topic: page.frontmatter.topic, summary: page.frontmatter.summary, tags: page.frontmatter.tags, body: edited, citations: ['src/todos.ts:TodoStore.complete'] }],
        corroborate: [], links: [],
      }),
      usage: { input_tokens: 2500, output_tokens: 600 },
    });
    const reviewed: string[] = [];
    ingest.setChangeChooser(async (changes) => {
      reviewed.push(...changes.map((change) => `${change.kind}:${change.slug}`));
      return changes.map((change) => change.slug);
    });

    const report = await vscode.commands.executeCommand<UpdateReport | undefined>('repoWiki.updateDriftedPages', root);

    assert.equal(mock.requests.length, 1, `one request, for the one drifted page; the last said: ${textOf(mock.requests.at(-1)!.body.messages.at(-1)!.content).slice(0, 1500)}`);
    const sent = mock.requests[0].body.messages.map((message) => textOf(message.content)).join('\n');
    assert.match(sent, /\+ {4}todo\.completedAt = Date\.now\(\);/, 'the model receives the diff of the method');
    assert.match(sent, new RegExp(`<page slug="${SLUG}"`));
    for (const other of ['request-pipeline', 'header-names-are-lower-cased', 'middleware-conventions', 'router-trailing-slashes', 'testing-handlers-in-process']) {
      assert.ok(!sent.includes(`<page slug="${other}"`), `the untouched page ${other} is never sent`);
    }
    assert.deepEqual(reviewed, [`update:${SLUG}`], 'the edit went through the review');
    assert.deepEqual([report?.updated, report?.restamped, report?.rejected], [[SLUG], [], []]);

    const written = fs.readFileSync(pageFile(), 'utf8');
    assert.match(written, /stamps `completedAt` on the todo it completes/);
    const anchor = await drift.currentAnchor({ path: 'src/todos.ts', symbol: 'TodoStore.complete', outside: false });
    assert.ok(anchor && written.includes(`"src/todos.ts:TodoStore.complete": "${anchor.split(' at:')[0]} at:`), `re-stamped with the changed body: ${written.slice(0, 1200)}`);
    const { issues } = await drift.check({ fresh: true });
    assert.deepEqual(issues.filter((issue) => issue.page.endsWith(`${SLUG}.md`)).map((issue) => issue.code), [], 'no drift left on the page');

    const entry = fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line)).at(-1);
    assert.deepEqual([entry.op, entry.update, entry.updated, entry.tokens], ['generate', true, [SLUG], { input: 2500, output: 600 }]);
  });
});
