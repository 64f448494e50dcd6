import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openLocalCore } from '../../../src/adapters/localCore';
import { SourceFactsReader } from '../../../src/adapters/map/sourceFactsReader';
import { WorkspaceFiles } from '../../../src/adapters/files/workspaceFiles';
import { SourceParser } from '../../../src/adapters/sourceParser';
import { WorkspaceSearch } from '../../../src/adapters/workspaceSearch';
import { RepoMap } from '../../../src/core/map/repoMap';
import { runCliProcess } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

const CANARY = 'CANARY-MAP-OUTSIDE';

/** One file per language drift parses, each declaring a name of its own and using HubRegistry, which src/hub.ts declares. */
const LANGUAGE_FILES: Record<string, [string, string]> = {
  TypeScript: ['src/hub.ts', 'export class HubRegistry {\n  register(name: string): void {}\n}\n'],
  JavaScript: ['web/app.js', "const registry = new HubRegistry();\nexport function startApplication() {\n  return registry;\n}\n"],
  Python: ['py/service.py', 'def python_service():\n    return HubRegistry()\n'],
  Go: ['go/server.go', 'package server\n\nfunc GoServer() *HubRegistry {\n\treturn nil\n}\n'],
  Rust: ['rs/lib.rs', 'pub fn rust_library() -> HubRegistry {\n    HubRegistry {}\n}\n'],
  Java: ['java/Client.java', 'public class JavaClient {\n    HubRegistry registry;\n}\n'],
  'C#': ['cs/Program.cs', 'public class CSharpProgram {\n    HubRegistry Registry;\n}\n'],
  Ruby: ['rb/worker.rb', "class RubyWorker\n  def run\n    HubRegistry.new\n  end\nend\n"],
  PHP: ['php/Handler.php', "<?php\nfunction php_handler() {\n    return new HubRegistry();\n}\n"],
  C: ['c/driver.c', 'struct HubRegistry *c_driver(void) {\n  return 0;\n}\n'],
  'C++': ['cpp/engine.cpp', 'HubRegistry* cppEngine() {\n  return nullptr;\n}\n'],
};

interface MapJson {
  tokens: { budget: number; used: number; estimate: string };
  files: { path: string; rank: number; symbols: { name: string; kind: string; line: number; signature: string }[] }[];
  omitted: number;
  skipped: { path: string; reason: string }[];
}

describe('repo-wiki map', function () {
  this.timeout(120000);
  let ws: string;

  before(() => {
    ws = tempDir('repo-wiki-map-');
    const outside = tempDir('repo-wiki-map-outside-');
    for (const [file, text] of Object.values(LANGUAGE_FILES)) {
      fs.mkdirSync(path.dirname(path.join(ws, file)), { recursive: true });
      fs.writeFileSync(path.join(ws, file), text);
    }
    fs.writeFileSync(path.join(ws, 'py/leaf.py'), 'def leaf_helper():\n    return 1\n');
    // Hostile files, skipped as drift and find_symbol skip them.
    const fd = fs.openSync(path.join(ws, 'src/huge.ts'), 'w');
    fs.ftruncateSync(fd, 3 * 1024 * 1024); // sparse: over the 2 MB read, no disk used
    fs.closeSync(fd);
    fs.writeFileSync(path.join(ws, 'c/binary.c'), Buffer.from('int HubRegistry;\0\0\0\n'));
    fs.writeFileSync(path.join(ws, 'src/deep.ts'), `export function deep() { return ${'('.repeat(10000)}1${')'.repeat(10000)}; }\n`);
    fs.writeFileSync(path.join(outside, 'secret.py'), `def leaked():\n    return '${CANARY}'\n`);
    fs.symlinkSync(path.join(outside, 'secret.py'), path.join(ws, 'py/outside.py'));
  });

  async function mapJson(...args: string[]): Promise<MapJson> {
    const run = await runCliProcess(['map', '--workspace', ws, '--format', 'json', ...args], {});
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.includes(CANARY));
    return JSON.parse(run.stdout) as MapJson;
  }

  it('ranks the hub first, shows a declaration in every language drift parses, and names the skipped files (json)', async () => {
    const map = await mapJson('--tokens', '4000');
    assert.equal(map.files[0].path, 'src/hub.ts');
    assert.deepEqual(map.files[0].symbols.map((symbol) => [symbol.name, symbol.line]), [['HubRegistry', 1]]);
    for (const [language, [file]] of Object.entries(LANGUAGE_FILES)) {
      const entry = map.files.find((candidate) => candidate.path === file);
      assert.ok(entry, `${language}: ${file} is mapped`);
      assert.ok(entry.symbols.length > 0, `${language}: ${file} shows a declaration`);
      assert.ok(entry.rank > 0);
    }
    assert.deepEqual(map.skipped.sort((a, b) => a.path.localeCompare(b.path)), [
      { path: 'c/binary.c', reason: 'binary' },
      { path: 'src/deep.ts', reason: 'too-deep' },
      { path: 'src/huge.ts', reason: 'too-large' },
    ]);
    assert.ok(!map.files.some((file) => file.path === 'py/outside.py'), 'a link out of the workspace is not mapped');
    assert.equal(map.tokens.estimate, 'characters / 4, rounded up');
  });

  it('prints the map as text within each budget', async () => {
    for (const budget of [20, 60, 150, 400]) {
      const run = await runCliProcess(['map', '--workspace', ws, '--tokens', String(budget)], {});
      assert.equal(run.code, 0, run.stderr);
      const text = run.stdout.replace(/\n$/, '');
      assert.ok(Math.ceil(text.length / 4) <= budget, `${budget} tokens: ${text.length} characters`);
      if (budget >= 60) assert.match(text, /^src\/hub\.ts:\n {4}1│ export class HubRegistry \{/);
    }
  });

  it('--focus moves a file and what it uses up', async () => {
    const plain = await mapJson('--tokens', '4000');
    const focused = await mapJson('--tokens', '4000', '--focus', 'py/leaf.py');
    assert.notEqual(plain.files[0].path, 'py/leaf.py');
    assert.equal(focused.files[0].path, 'py/leaf.py');
    const byName = await mapJson('--tokens', '4000', '--focus', 'RubyWorker');
    assert.equal(byName.files[0].path, 'rb/worker.rb');
  });

  it('refuses a budget that is not a positive whole number', async () => {
    const run = await runCliProcess(['map', '--workspace', ws, '--tokens', '12k'], {});
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--tokens must be a positive whole number/);
  });

  /** A map of the fixture that records each file it parses. */
  function countingMap(options?: { watched: boolean }) {
    const files = new WorkspaceFiles(ws, { syncReads: true });
    const parser = new SourceParser(false);
    const parsed: string[] = [];
    const map = new RepoMap(new SourceFactsReader(ws, files, () => new WorkspaceSearch(ws, files).sourceFiles(), {
      symbolsOf: async (relPath, text) => {
        parsed.push(relPath);
        await parser.prepare(relPath);
        return [...parser.parse(relPath, text).symbols.values()];
      },
    }), options);
    return { map, parsed };
  }

  it('after a save, maps again parsing only the saved file', async () => {
    const { map, parsed } = countingMap();
    await map.map();
    assert.ok(parsed.length >= Object.keys(LANGUAGE_FILES).length);
    parsed.length = 0;
    const again = await map.map();
    assert.deepEqual(parsed, [], 'nothing changed: nothing parsed');
    fs.appendFileSync(path.join(ws, 'py/leaf.py'), '\ndef another_leaf():\n    return leaf_helper()\n');
    const saved = await map.map({ tokens: 4000 });
    assert.deepEqual(parsed, ['py/leaf.py']);
    assert.ok(saved.files.find((file) => file.path === 'py/leaf.py')!.definitions.some((definition) => definition.name === 'another_leaf'));
    assert.equal(again.files.length > 0, true);
  });

  it('watched, as the extension\'s map: reads only the files it is told of, and lists again when one comes or goes', async () => {
    const { map, parsed } = countingMap({ watched: true });
    await map.map();
    parsed.length = 0;
    fs.appendFileSync(path.join(ws, 'go/server.go'), '\nfunc GoToldOf() *HubRegistry {\n\treturn nil\n}\n');
    fs.appendFileSync(path.join(ws, 'rs/lib.rs'), '\npub fn rust_not_told_of() {}\n');
    map.filesChanged(['go/server.go'], false);
    const told = await map.map({ tokens: 4000 });
    assert.deepEqual(parsed, ['go/server.go']);
    assert.ok(told.files.find((file) => file.path === 'go/server.go')!.definitions.some((definition) => definition.name === 'GoToldOf'));
    parsed.length = 0;
    fs.writeFileSync(path.join(ws, 'py/told_new.py'), 'def python_told_new():\n    return HubRegistry()\n');
    try {
      map.filesChanged(['py/told_new.py'], true);
      const listed = await map.map({ tokens: 4000 });
      assert.deepEqual(parsed, ['py/told_new.py']);
      assert.ok(listed.files.some((file) => file.path === 'py/told_new.py'));
    } finally {
      fs.rmSync(path.join(ws, 'py/told_new.py'));
    }
    map.filesChanged(['py/told_new.py'], true);
    assert.ok(!(await map.map({ tokens: 4000 })).files.some((file) => file.path === 'py/told_new.py'));
  });

  it('is the repo_map tool of the core', async () => {
    const tool = openLocalCore(ws).tools().find((candidate) => candidate.name === 'repo_map')!;
    const result = await tool.run({ focus: ['rb/worker.rb'], tokens: 200 });
    assert.equal(result.ok, true, result.text);
    assert.match(result.text, /^rb\/worker\.rb:\n/);
    assert.match(result.text, /skipped, not read or not parsed: .*src\/huge\.ts \(too-large\)/);
    assert.ok(!result.text.includes(CANARY));
    const bad = await tool.run({ tokens: 5 });
    assert.equal(bad.ok, false);
    assert.match(bad.text, /tokens: expected an integer from 64 to 8000/);
  });
});
