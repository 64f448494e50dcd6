import * as assert from 'node:assert/strict';
import { TokenBudget } from '../../../../src/core/generate/budget';
import { writePages, type GenerateDeps } from '../../../../src/core/generate/generate';
import { generateLogEntry } from '../../../../src/core/generate/log';
import { outlineInput, readSteering } from '../../../../src/core/generate/outlineInput';
import type { OutlinePage } from '../../../../src/core/generate/outline';
import type { PageChange } from '../../../../src/core/ingest/changes';
import type { CompletionRequest, LanguageModel, StreamCallbacks } from '../../../../src/core/llm/languageModel';
import { Wiki } from '../../../../src/core/wiki/wiki';
import { fixedClock, MemoryFileSystem } from '../../../support/fakes';

const ROOT = '/ws';

class ScriptedModel implements LanguageModel {
  constructor(private readonly replies: string[]) {}
  async complete(_request: CompletionRequest, callbacks: StreamCallbacks) {
    const text = this.replies.shift() ?? '{}';
    callbacks.onText(text);
    return { text, model: 'claude-test-1', inputTokens: 1000, outputTokens: 200, stopReason: 'end_turn' };
  }
}

async function wikiOn(fs: MemoryFileSystem) {
  fs.write(`${ROOT}/.wiki/log.jsonl`, '');
  fs.write(`${ROOT}/.wiki/SCHEMA.md`, '# Wiki schema\n');
  const wiki = new Wiki(ROOT, fs, fixedClock());
  await wiki.rebuildIndex();
  return wiki;
}

const outline: OutlinePage[] = ['page-1', 'page-2'].map((slug) => ({ slug, title: slug, topic: 'architecture', purpose: `About ${slug}.`, files: ['src/a.ts'] }));

function pagePlan(slug: string): string {
  return JSON.stringify({ pages: [{ action: 'create', slug, title: `Title of ${slug}`, topic: 'architecture', summary: `About ${slug}.`, tags: [], body: `# ${slug}\n\n\`src/a.ts:run\` runs.`, citations: ['src/a.ts:run'] }], corroborate: [], links: [] });
}

function deps(wiki: Wiki, model: LanguageModel, review?: GenerateDeps['review']): GenerateDeps {
  return {
    wiki, model, budget: new TokenBudget(1_000_000), tools: [], today: '2026-11-28',
    resolver: { currentAnchor: async (citation) => (citation.path === 'src/a.ts' ? 'sig:11111111 body:22222222' : undefined) },
    settings: { model: 'claude-test', maxTokens: 2000, maxToolRounds: 4, toolTokenBudget: 50_000 },
    ...(review ? { review } : {}),
  };
}

describe('generate: reviewing each page before it is written', () => {
  it('writes the pages the review accepts and declines the others, writing nothing of them', async () => {
    const wiki = await wikiOn(new MemoryFileSystem());
    const reviewed: { slug: string; changes: readonly PageChange[] }[] = [];
    const review = async (slug: string, changes: readonly PageChange[]) => {
      reviewed.push({ slug, changes });
      return slug === 'page-2' ? changes : [];
    };
    const report = await writePages(deps(wiki, new ScriptedModel([pagePlan('page-1'), pagePlan('page-2')]), review), outline, outline, '');
    assert.deepEqual(reviewed.map((entry) => entry.slug), ['page-1', 'page-2']);
    assert.equal(reviewed[0].changes[0].kind, 'create');
    assert.match(reviewed[0].changes[0].after, /src\/a\.ts:run/);
    assert.deepEqual(report.written, ['page-2']);
    assert.deepEqual(report.declined, ['page-1']);
    assert.equal(await wiki.readPage('page-1'), undefined);
    assert.ok(await wiki.readPage('page-2'));
  });

  it('logs the run as one generate line, with the declined pages', async () => {
    const budget = new TokenBudget(5000);
    budget.inputTokens = 1000;
    budget.outputTokens = 200;
    budget.requests = 1;
    const entry = generateLogEntry({ written: ['a'], declined: ['b'], rejected: [{ slug: 'c', problems: [] }], notAttempted: ['d'], stopped: { reason: 'cancelled' }, model: 'm' }, budget);
    assert.deepEqual(entry, { op: 'generate', pages: ['a'], written: ['a'], rejected: ['c'], declined: ['b'], stopped: 'cancelled', tokens: { input: 1000, output: 200 }, requests: 1, budget: 5000, model: 'm' });
    assert.equal('declined' in generateLogEntry({ written: [], declined: [], rejected: [], notAttempted: [], model: 'm' }, budget), false);
  });
});

describe('generate: what the outline is drafted from', () => {
  it('reads the manifests, the README once, and docs/ (nested), with the steering file', async () => {
    const fs = new MemoryFileSystem();
    fs.write(`${ROOT}/package.json`, '{"name": "demo"}');
    fs.write(`${ROOT}/README.md`, '# Demo');
    fs.write(`${ROOT}/docs/guide/start.md`, 'Start here.');
    fs.write(`${ROOT}/docs/logo.png`, 'png');
    fs.write(`${ROOT}/.wiki/generate.json`, '{"notes": "For new hires."}');
    const wiki = await wikiOn(fs);
    const steering = await readSteering(wiki, fs);
    assert.equal(steering.notes, 'For new hires.');
    const input = await outlineInput(wiki, fs, undefined, steering);
    assert.deepEqual(input.files.map((file) => file.path), ['package.json', 'README.md', 'docs/guide/start.md']);
    assert.equal(input.map, '');
    assert.match(input.schema, /Wiki schema/);
  });

  it('no steering file is no steering; a bad one names its field', async () => {
    const fs = new MemoryFileSystem();
    const wiki = await wikiOn(fs);
    assert.deepEqual(await readSteering(wiki, fs), { notes: '', pages: [] });
    fs.write(`${ROOT}/.wiki/generate.json`, '{"note": "x"}');
    await assert.rejects(readSteering(wiki, fs), /note is not a field of generate\.json/);
  });
});
