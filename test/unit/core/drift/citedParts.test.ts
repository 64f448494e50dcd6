import * as assert from 'node:assert/strict';
import { DriftEngine, type DriftIssue } from '../../../../src/core/drift/driftEngine';
import { relocatedCitation } from '../../../../src/core/drift/relocation';
import type { FileSymbols, SymbolParser } from '../../../../src/core/drift/symbols';
import { parsePage } from '../../../../src/core/pages/page';
import { MemoryFileSystem, pageText } from '../../../support/fakes';

const ROOT = '/ws';

/** Line ranges, keys and folders never reach a declaration parser. */
class RefusingParser implements SymbolParser {
  parse(fileName: string): FileSymbols {
    throw new Error(`${fileName} was parsed for declarations`);
  }
}

const page = (body: string, anchors: Record<string, string> = {}) =>
  parsePage('.wiki/pages/p.md', 'p', new TextEncoder().encode(pageText('p', body, { anchors: JSON.stringify(anchors) })));

function setup(files: Record<string, string>) {
  const fs = new MemoryFileSystem();
  for (const [file, content] of Object.entries(files)) fs.write(`${ROOT}/${file}`, content);
  const engine = new DriftEngine(ROOT, fs, new RefusingParser(), { filesContaining: async () => [] });
  /** The issue of one citation, with the page stamped as `anchorText` was when the page was verified. */
  const verdict = async (citation: string, anchor?: string): Promise<DriftIssue | undefined> => {
    const report = await engine.check([page(`\`${citation}\``, anchor === undefined ? {} : { [citation]: anchor })]);
    return report.issues[0];
  };
  return { fs, engine, verdict };
}

const CODE = ['function a() {', '  return 1;', '}', '', 'function b() {', '  return 2;', '}'].join('\n');

describe('Citations of line ranges, keys and folders', () => {
  describe('line ranges', () => {
    it('match while the text of the lines is as stamped, CRLF and trailing blanks aside', async () => {
      const { fs, engine, verdict } = setup({ 'src/a.ts': CODE });
      const anchor = await engine.currentAnchor({ path: 'src/a.ts', lines: { start: 5, end: 7 }, outside: false });
      assert.match(anchor!, /^body:[0-9a-f]{8}$/);
      assert.equal(await verdict('src/a.ts#L5-L7', anchor), undefined);
      fs.write(`${ROOT}/src/a.ts`, CODE.replace(/\n/g, '  \r\n'));
      engine.invalidate('src/a.ts');
      assert.equal(await verdict('src/a.ts#L5-L7', anchor), undefined);
    });

    it('report lines moved by code inserted above, with the citation of where the same text is now', async () => {
      const { fs, engine, verdict } = setup({ 'src/a.ts': CODE });
      const anchor = await engine.currentAnchor({ path: 'src/a.ts', lines: { start: 5, end: 7 }, outside: false });
      fs.write(`${ROOT}/src/a.ts`, `// header\n// more\n${CODE}`);
      engine.invalidate('src/a.ts');
      const issue = await verdict('src/a.ts#L5-L7', anchor);
      assert.equal(issue?.code, 'moved-symbol');
      assert.equal(issue?.data.relocatedTo, 'src/a.ts#L7-L9');
      assert.equal(issue && relocatedCitation(issue), 'src/a.ts#L7-L9');
      assert.match(issue!.message, /now at src\/a\.ts#L7-L9/);
    });

    it('report changed text as body-changed, with the anchor a review would record', async () => {
      const { fs, engine, verdict } = setup({ 'src/a.ts': CODE });
      const anchor = await engine.currentAnchor({ path: 'src/a.ts', lines: { start: 5, end: 7 }, outside: false });
      fs.write(`${ROOT}/src/a.ts`, CODE.replace('return 2', 'return 3'));
      engine.invalidate('src/a.ts');
      const issue = await verdict('src/a.ts#L5-L7', anchor);
      assert.equal(issue?.code, 'body-changed');
      assert.equal(issue?.message, 'The text of lines 5–7 of src/a.ts changed since this page was verified.');
      assert.notEqual(issue?.data.anchor, anchor);
    });

    it('report a range past the end, a backwards range and a missing file clearly', async () => {
      const { verdict } = setup({ 'src/a.ts': CODE });
      const past = await verdict('src/a.ts#L6-L9');
      assert.equal(past?.code, 'missing-symbol');
      assert.equal(past?.message, 'src/a.ts has 7 lines; the cited lines 6–9 run past its end.');
      assert.equal((await verdict('src/a.ts#L12'))?.message, 'src/a.ts has 7 lines; the cited line 12 is past its end.');
      const backwards = await verdict('src/a.ts#L5-L2');
      assert.equal(backwards?.code, 'missing-symbol');
      assert.match(backwards!.message, /runs from line 1 or later to a line at or after its start/);
      const gone = await verdict('src/gone.ts#L1-L2');
      assert.equal(gone?.code, 'missing-file');
      assert.equal(gone?.message, 'src/gone.ts does not exist.');
    });

    it('are unverified until stamped, and locate to their lines', async () => {
      const { engine, verdict } = setup({ 'src/a.ts': CODE });
      const issue = await verdict('src/a.ts#L1-L3');
      assert.equal(issue?.code, 'unverified');
      assert.equal(issue?.data.anchor, await engine.currentAnchor({ path: 'src/a.ts', lines: { start: 1, end: 3 }, outside: false }));
      assert.deepEqual(await engine.locate({ path: 'src/a.ts', lines: { start: 5, end: 7 } }), { path: 'src/a.ts', line: 4, endLine: 6 });
    });
  });

  describe('keys of data files', () => {
    const PACKAGE = '{\n  "name": "x",\n  "scripts": {\n    "test": "mocha",\n    "build": "tsc"\n  }\n}\n';

    it('check that the key path exists, and fingerprint its value', async () => {
      const { fs, engine, verdict } = setup({ 'package.json': PACKAGE });
      const anchor = await engine.currentAnchor({ path: 'package.json', symbol: 'scripts.test', outside: false });
      assert.equal(await verdict('package.json:scripts.test', anchor), undefined);
      const missing = await verdict('package.json:scripts.lint');
      assert.equal(missing?.code, 'missing-symbol');
      assert.equal(missing?.message, 'scripts.lint is not a key of package.json: scripts has no key lint.');
      fs.write(`${ROOT}/package.json`, PACKAGE.replace('"mocha"', '"mocha --parallel"'));
      engine.invalidate('package.json');
      const changed = await verdict('package.json:scripts.test', anchor);
      assert.equal(changed?.code, 'body-changed');
      assert.equal(changed?.message, 'The value of scripts.test in package.json changed since this page was verified.');
    });

    it('read JSON with comments and trailing commas (tsconfig.json), and ignore reformatting and key order', async () => {
      const tsconfig = '{\n  // compiler\n  "compilerOptions": { "strict": true, "target": "es2022", },\n}\n';
      const { fs, engine, verdict } = setup({ 'tsconfig.json': tsconfig });
      const anchor = await engine.currentAnchor({ path: 'tsconfig.json', symbol: 'compilerOptions', outside: false });
      assert.ok(anchor);
      fs.write(`${ROOT}/tsconfig.json`, '{\n  "compilerOptions": {\n    "target": "es2022",\n    "strict": true\n  }\n}\n');
      engine.invalidate('tsconfig.json');
      assert.equal(await verdict('tsconfig.json:compilerOptions', anchor), undefined);
      assert.deepEqual(await engine.locate({ path: 'tsconfig.json', symbol: 'compilerOptions.strict' }), { path: 'tsconfig.json', line: 3, endLine: 3 });
    });

    it('say that a file that is not valid JSON cannot be checked for keys', async () => {
      const { verdict } = setup({ 'package.json': '{ "scripts": ' });
      const issue = await verdict('package.json:scripts');
      assert.equal(issue?.code, 'unreadable-file');
      assert.match(issue!.message, /package\.json is not valid JSON \(ValueExpected at line 1\)/);
    });

    it('check keys of YAML files (a CI workflow): sequences by index, aliases resolved, comments and layout no change', async () => {
      const workflow = 'defaults: &node\n  node: 20\njobs:\n  test:\n    runs-on: ubuntu-latest\n    env: *node\n    steps:\n      - run: npm ci\n      - run: npm test\n';
      const { fs, engine, verdict } = setup({ '.github/workflows/ci.yml': workflow });
      const file = '.github/workflows/ci.yml';
      const anchor = await engine.currentAnchor({ path: file, symbol: 'jobs.test.steps.1', outside: false });
      assert.ok(anchor);
      assert.equal(await verdict(`${file}:jobs.test.steps.1`, anchor), undefined);
      assert.deepEqual(await engine.locate({ path: file, symbol: 'jobs.test.steps.1' }), { path: file, line: 8, endLine: 8 });
      assert.equal((await verdict(`${file}:jobs.lint`))?.message, 'jobs.lint is not a key of ci.yml: jobs has no key lint.');
      const envAnchor = await engine.currentAnchor({ path: file, symbol: 'jobs.test.env', outside: false });
      fs.write(`${ROOT}/${file}`, `# CI\n${workflow.replace('      - run: npm test', '      -   run: npm test   # the suite')}`);
      engine.invalidate(file);
      assert.equal(await verdict(`${file}:jobs.test.steps.1`, anchor), undefined, 'a comment and spacing are no change');
      fs.write(`${ROOT}/${file}`, workflow.replace('node: 20', 'node: 22'));
      engine.invalidate(file);
      assert.equal((await verdict(`${file}:jobs.test.env`, envAnchor))?.code, 'body-changed', 'a change through an alias is a change');
      fs.write(`${ROOT}/${file}`, 'jobs: [unclosed\n');
      engine.invalidate(file);
      assert.match((await verdict(`${file}:jobs`))!.message, /ci\.yml is not valid YAML \(Flow sequence .* at line \d+\), so its keys cannot be checked/);
    });

    it('check keys of TOML files (pyproject.toml): tables, arrays and dotted keys, located at their line', async () => {
      const pyproject = '[project]\nname = "x"\ndependencies = ["click>=8"]\n\n[tool.pytest.ini_options]\naddopts = "-q"\n';
      const { fs, engine, verdict } = setup({ 'pyproject.toml': pyproject });
      const anchor = await engine.currentAnchor({ path: 'pyproject.toml', symbol: 'project.dependencies', outside: false });
      assert.ok(anchor);
      assert.deepEqual(await engine.locate({ path: 'pyproject.toml', symbol: 'project.dependencies' }), { path: 'pyproject.toml', line: 2, endLine: 2 });
      assert.deepEqual(await engine.locate({ path: 'pyproject.toml', symbol: 'tool.pytest.ini_options' }), { path: 'pyproject.toml', line: 4, endLine: 4 });
      assert.equal((await verdict('pyproject.toml:project.version'))?.code, 'missing-symbol');
      fs.write(`${ROOT}/pyproject.toml`, pyproject.replace('"click>=8"', '"click>=8", "rich"'));
      engine.invalidate('pyproject.toml');
      assert.equal((await verdict('pyproject.toml:project.dependencies', anchor))?.code, 'body-changed');
      fs.write(`${ROOT}/pyproject.toml`, '[project\n');
      engine.invalidate('pyproject.toml');
      assert.equal((await verdict('pyproject.toml:project'))?.code, 'unreadable-file');
      assert.equal((await verdict('gone.yml:jobs'))?.code, 'missing-file');
    });
  });

  describe('folders', () => {
    it('hold while the folder exists, with or without the trailing slash, and need no stamp', async () => {
      const { engine, verdict } = setup({ 'src/adapters/a.ts': CODE });
      assert.equal(await verdict('src/adapters/'), undefined);
      assert.equal(await verdict('src/adapters'), undefined);
      assert.equal(await engine.currentAnchor({ path: 'src/adapters', outside: false }), '', 'resolves, with nothing to record');
      assert.equal(await engine.currentAnchor({ path: 'src/adapters', folder: true, outside: false }), '');
      assert.equal(await engine.currentAnchor({ path: 'src/gone', folder: true, outside: false }), undefined);
      assert.deepEqual(await engine.locate({ path: 'src/adapters', folder: true }), { path: 'src/adapters', line: 0, folder: true });
    });

    it('report a folder that is gone as a missing folder', async () => {
      const { verdict } = setup({ 'src/a.ts': CODE });
      const issue = await verdict('src/adapters/');
      assert.equal(issue?.code, 'missing-file');
      assert.equal(issue?.message, 'The folder src/adapters/ does not exist.');
    });
  });
});
