import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DriftClient } from '../../../../src/adapters/drift/driftClient';
import type { DriftRequest } from '../../../../src/adapters/drift/protocol';
import { WorkerDriftBackend } from '../../../../src/adapters/drift/workerDriftBackend';
import { openLocalCore } from '../../../../src/adapters/localCore';
import { WikiError } from '../../../../src/core/errors';
import { tempDir } from '../../../support/tempDirs';

const DEMO = path.resolve(__dirname, '../../../../../demo');

/** A drift client that answers each request kind with a canned value and records what it was sent. */
function fakeClient(answers: Partial<Record<DriftRequest['kind'], unknown>>) {
  const sent: { request: DriftRequest; signal?: AbortSignal }[] = [];
  const client = { request: async (request: DriftRequest, signal?: AbortSignal) => (sent.push({ request, signal }), answers[request.kind]) } as unknown as DriftClient;
  return { sent, client: async () => client };
}

describe('WorkerDriftBackend: the drift worker behind the DriftBackend interface', () => {
  it('sends one typed request per call, naming its folder, and passes the cancellation signal', async () => {
    const report = { pagesChecked: 1, citationsChecked: 2, issues: [] };
    const { sent, client } = fakeClient({ check: report, sourcesChanged: report });
    const backend = new WorkerDriftBackend(client, '/ws');
    const signal = new AbortController().signal;
    assert.equal(await backend.check({ slugs: ['a'], fresh: true }, signal), report);
    await backend.sourcesChanged({ paths: ['src/a.ts'], listChanged: false, citing: ['a'] });
    assert.deepEqual(sent.map((s) => s.request), [
      { kind: 'check', root: '/ws', slugs: ['a'], fresh: true },
      { kind: 'sourcesChanged', root: '/ws', paths: ['src/a.ts'], listChanged: false, citing: ['a'] },
    ]);
    assert.equal(sent[0].signal, signal);
  });

  it("turns the worker's null (nothing resolves) into undefined, as the local backend answers", async () => {
    const { client } = fakeClient({ locate: null, anchor: null });
    const backend = new WorkerDriftBackend(client, '/ws');
    assert.equal(await backend.locate({ path: 'src/a.ts', symbol: 'gone' }), undefined);
    assert.equal(await backend.currentAnchor({ path: 'src/a.ts', symbol: 'gone', outside: false }), undefined);
  });
});

describe('LocalDriftBackend: drift in this thread, over a real workspace', function () {
  this.timeout(20000);
  const workspace = () => {
    const root = path.join(tempDir('repo-wiki-backend-'), 'ws');
    fs.cpSync(DEMO, root, { recursive: true });
    return { root, drift: openLocalCore(root).drift };
  };

  it('locates a cited method and gives the anchor a stamp would record', async () => {
    const { drift } = workspace();
    const found = await drift.locate({ path: 'src/todos.ts', symbol: 'TodoStore.complete' });
    assert.equal(found?.path, 'src/todos.ts');
    assert.match(String(await drift.currentAnchor({ path: 'src/todos.ts', symbol: 'TodoStore.complete', outside: false })), /^sig:\w+ body:\w+/);
    assert.equal(await drift.locate({ path: 'src/todos.ts', symbol: 'TodoStore.nothingHere' }), undefined);
  });

  it('checks unsaved page text instead of the file, and scopes the report to the pages asked for', async () => {
    const { drift } = workspace();
    const page = fs.readdirSync(path.join(DEMO, '.wiki/pages'))[0].replace(/\.md$/, '');
    const text = fs.readFileSync(path.join(DEMO, '.wiki/pages', `${page}.md`), 'utf8') + '\nAlso `src/todos.ts:TodoStore.vanished`.\n';
    const report = await drift.check({ slugs: [page], texts: { [page]: text } });
    assert.deepEqual(report.pages, [`.wiki/pages/${page}.md`]);
    assert.ok(report.issues.some((issue) => issue.code === 'missing-symbol' && issue.data.citation === 'src/todos.ts:TodoStore.vanished'), JSON.stringify(report.issues));
  });

  it('refuses to stamp a page that does not exist, with a clear error', async () => {
    const { drift } = workspace();
    await assert.rejects(drift.stamp('no-such-page'), (error: unknown) => error instanceof WikiError && error.code === 'invalid-page' && /no page "no-such-page"/.test(error.message));
  });
});
