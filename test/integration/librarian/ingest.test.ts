import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RepoWikiApi } from '../../../src/extension';
import type { HostToWebview } from '../../../src/shared/protocol';
import type { ChatHooks } from '../../../src/vscode/chat/chatView';
import type { IngestHooks } from '../../../src/vscode/ingest/ingestFeature';
import { activateExtension, startMockAnthropic, wikiFiles, waitFor, workspaceRoot, type MockAnthropic, type MockRequest, textOf } from '../helpers';

const API_KEY = 'sk-ant-ingest-test-key';

function plan(pages: object[], extra: object = {}): string {
  return JSON.stringify({ pages, corroborate: [], links: [], ...extra });
}

const CACHING_PAGE = {
  action: 'create',
  slug: 'response-caching',
  title: 'Response caching',
  topic: 'patterns',
  summary: 'Which responses the pipeline may cache, and how a cache entry is invalidated.',
  tags: ['http', 'caching'],
  body: '# Response caching\n\nGET responses are cached after `src/pipeline.ts:Pipeline.run` returns them; errors from `src/errors.ts:HttpError` never are.\n\nSee [[request-pipeline]].',
  citations: ['src/pipeline.ts:Pipeline.run', 'src/errors.ts:HttpError'],
};

describe('Ingest through the real SDK and the mock Messages API', () => {
  let root: string;
  let api: RepoWikiApi;
  let hooks: IngestHooks;
  let mock: MockAnthropic;
  const llm = () => vscode.workspace.getConfiguration('repoWiki.llm');
  const source = (name: string, text: string) => {
    const file = path.join(root, 'docs', name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return vscode.Uri.file(file);
  };

  before(async () => {
    root = workspaceRoot();
    api = await activateExtension();
    hooks = api.hooks.ingest as IngestHooks;
    mock = await startMockAnthropic({ validKey: API_KEY });
    await llm().update('baseUrl', mock.url, vscode.ConfigurationTarget.Global);
    process.env.ANTHROPIC_API_KEY = API_KEY;
  });

  after(async () => {
    hooks.setChangeChooser(undefined);
    delete process.env.ANTHROPIC_API_KEY;
    await llm().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await mock?.close();
  });

  it('applies a correct plan: the page, its stamped citations, the cross-link, the index and the log', async () => {
    const uri = source('caching.md', '# Caching\n\nWe cache GET responses once the pipeline has produced them. Errors are never cached.\n');
    mock.script({ text: plan([CACHING_PAGE], { links: [{ from: 'request-pipeline', to: 'response-caching' }] }), chunks: 5, usage: { input_tokens: 2100, output_tokens: 350 } });
    let reviewed: string[] = [];
    hooks.setChangeChooser(async (changes) => (reviewed = changes.map((c) => `${c.kind}:${c.slug}`), changes.map((c) => c.slug)));

    const result = await vscode.commands.executeCommand<{ pages: string[] } | undefined>('repoWiki.ingestFiles', uri);
    assert.deepEqual(result?.pages.sort(), ['request-pipeline', 'response-caching']);
    assert.deepEqual(reviewed, ['create:response-caching', 'link:request-pipeline']);

    const request = mock.requests.at(-1)!;
    assert.equal(request.apiKey, API_KEY);
    assert.match(request.body.system.map((b) => b.text).join('\n'), /Wiki schema[\s\S]*\[\[request-pipeline\]\]/, 'SCHEMA.md and the catalog are sent');
    assert.match(request.body.messages[0].content, /<source path="docs\/caching.md" lines="1-3">/);

    const page = fs.readFileSync(path.join(root, '.wiki', 'pages', 'response-caching.md'), 'utf8');
    const wiki = api.services.wikis.all().find((candidate) => candidate.root === root)!;
    const anchor = await api.services.cores.of(wiki).drift.currentAnchor({ path: 'src/pipeline.ts', symbol: 'Pipeline.run', outside: false });
    assert.ok(anchor && page.includes(`"src/pipeline.ts:Pipeline.run": "${anchor}"`), page);
    const hash = execFileSync('git', ['hash-object', 'docs/caching.md'], { cwd: root, encoding: 'utf8' }).trim();
    assert.match(page, new RegExp(`sources: \\["file:docs/caching.md @${hash}"\\]`), 'the source and the version of its content');
    assert.match(fs.readFileSync(path.join(root, '.wiki', 'pages', 'request-pipeline.md'), 'utf8'), /## Related\n\n- \[\[response-caching\]\]/);
    assert.match(fs.readFileSync(path.join(root, '.wiki', 'index.json'), 'utf8'), /"slug": "response-caching"/);
    const log = fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const entry = log.at(-1);
    assert.equal(entry.op, 'ingest');
    assert.deepEqual(entry.sources, ['file:docs/caching.md']);
    assert.deepEqual(entry.hashes, { 'file:docs/caching.md': hash });
    assert.deepEqual(entry.tokens, { input: 2100, output: 350 });
    assert.deepEqual(entry.created, ['response-caching']);
    await waitFor('the new page in the Pages snapshot', async () => (await api.services.snapshots.get(api.services.wikis.all()[0])).pages.some((p) => p.slug === 'response-caching'));
  });

  it('the loop: the ingested page is retrieved and cited by the next chat question', async () => {
    const chat = api.hooks.chat as ChatHooks;
    // The model cites whatever page the prompt put first.
    mock.script((body: MockRequest['body']) => ({ text: `See [[${/<page slug="([^"]+)"/.exec(textOf(body.messages.at(-1)!.content))?.[1]}]].` }));
    const requestId = 'loop-after-ingest';
    const done = new Promise<Extract<HostToWebview, { type: 'turnDone' }>>((resolve) => {
      const subscription = chat.onDidPost((m) => m.type === 'turnDone' && m.requestId === requestId && (subscription.dispose(), resolve(m)));
    });
    await chat.send({ type: 'ask', requestId, question: 'Which responses get cached, and are errors cached?' });
    const turn = (await done).turn;
    assert.equal(turn.pages[0].slug, 'response-caching');
    assert.equal(turn.answer, 'See [[response-caching]].');
  });

  it('running the same ingest again skips the unchanged source before any request, and creates no duplicate', async () => {
    const before = wikiFiles(root);
    const requests = mock.requests.length;
    let asked = false;
    hooks.setChangeChooser(async () => ((asked = true), []));
    const result = await vscode.commands.executeCommand<{ pages: string[]; unchanged?: string[] }>('repoWiki.ingestFiles', vscode.Uri.file(path.join(root, 'docs', 'caching.md')));
    assert.deepEqual(result, { pages: [], unchanged: ['docs/caching.md'] });
    assert.equal(mock.requests.length, requests, 'no request to the Messages API');
    assert.equal(asked, false);
    assert.deepEqual(wikiFiles(root), before);
    assert.match(fs.readFileSync(path.join(root, '.wiki', 'pages', 'response-caching.md'), 'utf8'), /^corroborations: 0$/m, 'the same source does not corroborate itself');
  });

  it('rejects an invalid plan and writes nothing', async () => {
    const uri = source('junk.md', 'Some notes.\n');
    const before = wikiFiles(root);
    mock.script({ text: 'I think you should add a page about notes.' }, { text: '{"pages": [{"slug": "Bad Slug!"}]}' });
    let asked = false;
    hooks.setChangeChooser(async () => ((asked = true), []));
    const result = await vscode.commands.executeCommand('repoWiki.ingestFiles', uri);
    assert.equal(result, undefined);
    assert.equal(asked, false, 'nothing reached the review');
    assert.match(mock.requests.at(-1)!.body.messages.at(-1)!.content, /breaks the plan contract/, 'one repair request was sent');
    assert.deepEqual(wikiFiles(root), before);
  });

  it('rejects a plan with an invented citation and writes nothing', async () => {
    const uri = source('router.md', 'The router matches routes.\n');
    const before = wikiFiles(root);
    mock.script({ text: plan([{ ...CACHING_PAGE, slug: 'router-matching', title: 'Router matching', body: 'Uses `src/router.ts:Router.teleport`.', citations: [] }]) });
    hooks.setChangeChooser(async (changes) => changes.map((c) => c.slug));
    assert.equal(await vscode.commands.executeCommand('repoWiki.ingestFiles', uri), undefined);
    assert.deepEqual(wikiFiles(root), before);
  });

  it('a re-discovery bumps corroborations instead of writing a duplicate', async () => {
    const file = path.join(root, '.wiki', 'pages', 'errors-become-responses-at-the-edge.md');
    const count = Number(/^corroborations: (\d+)$/m.exec(fs.readFileSync(file, 'utf8'))![1]);
    const uri = source('adr-errors.md', '# ADR: errors\n\nThrow HttpError anywhere; Pipeline.run turns it into a response.\n');
    mock.script({ text: plan([{ ...CACHING_PAGE, slug: 'errors-at-the-edge', title: 'Errors become responses at the edge', topic: 'decisions', body: 'Throw HttpError anywhere.', citations: [] }]) });
    let reviewed: string[] = [];
    hooks.setChangeChooser(async (changes) => (reviewed = changes.map((c) => `${c.kind}:${c.slug}`), changes.map((c) => c.slug)));
    await vscode.commands.executeCommand('repoWiki.ingestFiles', uri);
    assert.deepEqual(reviewed, ['corroborate:errors-become-responses-at-the-edge']);
    const page = fs.readFileSync(file, 'utf8');
    assert.match(page, new RegExp(`^corroborations: ${count + 1}$`, 'm'));
    assert.match(page, /"file:docs\/adr-errors.md @[0-9a-f]{40}"/);
    assert.ok(!fs.existsSync(path.join(root, '.wiki', 'pages', 'errors-at-the-edge.md')));
  });

  it('rejecting the review writes nothing; accepting some writes only those', async () => {
    const uri = source('two.md', 'Two topics.\n');
    const before = wikiFiles(root);
    const two = plan([
      { ...CACHING_PAGE, slug: 'topic-one', title: 'Topic one', body: 'One.', citations: [] },
      { ...CACHING_PAGE, slug: 'topic-two', title: 'Topic two', body: 'Two.', citations: [] },
    ]);
    mock.script({ text: two });
    hooks.setChangeChooser(async () => undefined);
    await vscode.commands.executeCommand('repoWiki.ingestFiles', uri);
    assert.deepEqual(wikiFiles(root), before);

    mock.script({ text: two });
    hooks.setChangeChooser(async () => ['topic-two']);
    await vscode.commands.executeCommand('repoWiki.ingestFiles', uri);
    assert.ok(fs.existsSync(path.join(root, '.wiki', 'pages', 'topic-two.md')));
    assert.ok(!fs.existsSync(path.join(root, '.wiki', 'pages', 'topic-one.md')));
    const entry = JSON.parse(fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').at(-1)!);
    assert.deepEqual([entry.created, entry.rejected], [['topic-two'], ['topic-one']]);
  });

  it('cancelling mid-ingest leaves no page, half-written or whole', async () => {
    const uri = source('slow.md', 'A slow source.\n');
    const before = wikiFiles(root);
    mock.script({ text: plan([CACHING_PAGE]).slice(0, 40), hang: true });
    hooks.setChangeChooser(async (changes) => changes.map((c) => c.slug));
    const count = mock.requests.length;
    const running = vscode.commands.executeCommand('repoWiki.ingestFiles', uri);
    await waitFor('the request to reach the mock', () => mock.requests.length > count);
    hooks.cancelAll();
    assert.equal(await running, undefined);
    await mock.settled();
    assert.equal(mock.requests.at(-1)!.outcome, 'client-closed');
    assert.deepEqual(wikiFiles(root), before);
  });

  it('"Ingest selection" records the lines it came from', async () => {
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(path.join(root, 'src', 'errors.ts')));
    editor.selection = new vscode.Selection(11, 0, 14, 0);
    mock.script({ text: plan([{ ...CACHING_PAGE, slug: 'http-error-class', title: 'The HttpError class', body: 'Throw `src/errors.ts:HttpError` with a status.', citations: [] }]) });
    hooks.setChangeChooser(async (changes) => changes.map((c) => c.slug));
    await vscode.commands.executeCommand('repoWiki.ingestSelection');
    assert.match(mock.requests.at(-1)!.body.messages[0].content, /<source path="src\/errors.ts" lines="12-14">/);
    assert.match(fs.readFileSync(path.join(root, '.wiki', 'pages', 'http-error-class.md'), 'utf8'), /sources: \["file:src\/errors.ts#L12-L14 @[0-9a-f]{40}"\]/, 'the lines, and the version of the selected text');
  });
});
