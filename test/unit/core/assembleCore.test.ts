import * as assert from 'node:assert/strict';
import { assembleCore } from '../../../src/core/assembleCore';
import type { DriftBackend, DriftCheckOptions } from '../../../src/core/drift/driftBackend';
import type { CodeSearch } from '../../../src/core/tools';
import { Wiki } from '../../../src/core/wiki/wiki';
import { fixedClock, MemoryFileSystem, pageText } from '../../support/fakes';

const ROOT = '/ws';

/** A drift backend that answers nothing and records what it was asked. */
function recordingDrift(): DriftBackend & { checks: DriftCheckOptions[]; symbolFiles: string[] } {
  const checks: DriftCheckOptions[] = [];
  const symbolFiles: string[] = [];
  return {
    checks,
    symbolFiles,
    check: async (options = {}) => (checks.push(options), { pagesChecked: options.slugs?.length ?? 0, citationsChecked: 0, issues: [] }),
    sourcesChanged: async () => ({ pagesChecked: 0, citationsChecked: 0, issues: [] }),
    locate: async () => undefined,
    currentAnchor: async () => undefined,
    symbolsOf: async (relPath) => (symbolFiles.push(relPath), []),
    stamp: async (slug) => ({ slug, stamped: [], unresolved: [] }),
    whatChanged: async () => ({ unavailable: 'not here' }),
  };
}

const noSearch: CodeSearch = {
  grep: async () => { throw new Error('no search in these tests'); },
  filesContaining: async () => ({ files: [], truncated: false }),
};

function parts() {
  const fs = new MemoryFileSystem();
  fs.write(`${ROOT}/.wiki/pages/alpha.md`, pageText('Alpha', 'Cites `src/a.ts:foo`.'));
  fs.write(`${ROOT}/.wiki/pages/beta.md`, pageText('Beta', 'No citations.'));
  fs.write(`${ROOT}/.wiki/log.jsonl`, '');
  fs.write(`${ROOT}/src/a.ts`, 'export function foo() {}\n');
  const drift = recordingDrift();
  return { fs, drift, parts: { wiki: new Wiki(ROOT, fs, fixedClock()), files: fs, drift, search: noSearch, clock: fixedClock() } };
}

describe('assembleCore: one core for every front end', () => {
  it('drift-checks through the backend it is given: check_drift and read_page name the pages they check', async () => {
    const { drift, parts: given } = parts();
    const tools = Object.fromEntries(assembleCore(given).tools().map((tool) => [tool.name, tool]));
    assert.equal((await tools.check_drift.run({})).ok, true);
    assert.equal((await tools.read_page.run({ slug: 'beta' })).ok, true);
    assert.deepEqual(drift.checks, [{ slugs: ['alpha', 'beta'] }, { slugs: ['beta'] }]);
  });

  it('reads declarations with the backend too (read_code parses through it, not a parser of its own)', async () => {
    const { drift, parts: given } = parts();
    const readCode = assembleCore(given).tools().find((tool) => tool.name === 'read_code')!;
    await readCode.run({ citation: 'src/a.ts:foo' });
    assert.deepEqual(drift.symbolFiles, ['src/a.ts']);
  });

  it('reviews proposals against the same backend, and keeps one proposal store', () => {
    const { drift, parts: given } = parts();
    const core = assembleCore(given);
    assert.equal(core.proposals.resolver, drift);
    assert.equal(core.proposals.store, core.proposals.store);
    assert.equal(core.proposals.store.dir, '/ws/.wiki/.cache/proposals');
  });

  it('keeps the same pages array while no page changed, and a new one when one did', async () => {
    const { fs, parts: given } = parts();
    const core = assembleCore(given);
    const first = await core.pages();
    assert.equal(await core.pages(), first);
    fs.write(`${ROOT}/.wiki/pages/gamma.md`, pageText('Gamma'));
    const after = await core.pages();
    assert.notEqual(after, first);
    assert.deepEqual(after.map((page) => page.slug), ['alpha', 'beta', 'gamma']);
  });

  it("serves the front end's own pages and ages when it holds them (the extension's snapshots)", async () => {
    const { parts: given } = parts();
    const held = await assembleCore(given).pages();
    const core = assembleCore({ ...given, pages: async () => held.slice(0, 1), ages: async (pages) => new Map(pages.map((page) => [page.slug, 'stable for 3 months'])) });
    assert.deepEqual((await core.pages()).map((page) => page.slug), ['alpha']);
    const read = await core.tools().find((tool) => tool.name === 'read_page')!.run({ slug: 'alpha' });
    assert.match(read.text, /stable for 3 months/);
    assert.equal(core.tools(), core.tools(), 'built once');
  });
});
