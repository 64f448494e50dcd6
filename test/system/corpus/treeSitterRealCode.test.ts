// Drift in the languages tree-sitter parses, on real code: each language's file comes from a
// Debian package the test stage installs (test/run-all.mjs); C#'s from a Debian source package it
// unpacks (newtonsoft-json). Every edit asserts the COMPLETE list of issues, so a false positive on any
// other citation fails as surely as a missed change.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorkspaceFiles } from '../../../src/adapters/files/workspaceFiles';
import { SourceParser } from '../../../src/adapters/sourceParser';
import { LANGUAGES } from '../../../src/adapters/treesitter/languages';
import { ParsePool } from '../../../src/adapters/treesitter/parsePool';
import { unpackAnswers } from '../../../src/adapters/treesitter/threadAnswers';
import { TreeSitterParser } from '../../../src/adapters/treesitter/treeSitterParser';
import { WorkspaceSearch } from '../../../src/adapters/workspaceSearch';
import { parseCitationText } from '../../../src/core/drift/citations';
import { DriftEngine } from '../../../src/core/drift/driftEngine';
import { CONTAINER_KINDS, containerShape } from '../../../src/core/drift/symbols';
import { parsePage } from '../../../src/core/pages/page';
import { pageText } from '../../support/fakes';
import { tempDir } from '../../support/tempDirs';

const { debianSourceDir } = require(path.resolve(__dirname, '../../../../test/harness/runtime.cjs')) as { debianSourceDir(name: string): string };

interface RealSource {
  language: string;
  /** Where the file is on this machine (its package is installed by the test stage), and its name in the workspace. */
  source: () => string;
  file: string;
  comment: string;
  /** Cited symbols; containers are cited with their members, so a member's change shows on the container's shape. */
  cite: string[];
  /** A statement that parses inside a function body of this language. */
  statement: string;
  body: string;
  signature: { symbol: string; from: string; to: string };
  remove: string;
  rename: string;
}

const fromTar = (tarball: string, member: string) => () => {
  const out = tempDir('repo-wiki-src-');
  execFileSync('tar', ['-xzf', tarball, '-C', out, member]);
  return path.join(out, member);
};

const SOURCES: RealSource[] = [
  {
    language: 'Python', source: () => '/usr/lib/python3.11/json/decoder.py', file: 'app/decoder.py', comment: '#',
    cite: ['JSONDecoder', 'JSONDecoder.decode', 'JSONDecoder.raw_decode', 'py_scanstring', 'JSONObject'],
    statement: 'touched()', body: 'JSONDecoder.decode',
    signature: { symbol: 'JSONDecoder.raw_decode', from: 'def raw_decode(self, s, idx=0):', to: 'def raw_decode(self, s, idx=1):' },
    remove: 'py_scanstring', rename: 'JSONObject',
  },
  {
    language: 'Go', source: () => '/usr/share/gocode/src/github.com/google/uuid/uuid.go', file: 'server/uuid.go', comment: '//',
    cite: ['UUID.String', 'UUID.URN', 'Parse', 'MustParse', 'FromBytes'],
    statement: 'touched()', body: 'Parse',
    signature: { symbol: 'UUID.URN', from: 'func (uuid UUID) URN() string {', to: 'func (uuid UUID) URN() (urn string) {' },
    remove: 'FromBytes', rename: 'MustParse',
  },
  {
    language: 'Rust', source: () => '/usr/share/cargo/registry/either-1.6.1/src/lib.rs', file: 'src/either.rs', comment: '//',
    cite: ['Either', 'Either.flip', 'Either.map_left', 'Either.left_or', 'Either.is_right'],
    statement: 'touched();', body: 'Either.flip',
    signature: { symbol: 'Either.left_or', from: 'pub fn left_or(self, other: L) -> L {', to: 'pub fn left_or(self, fallback: L) -> L {' },
    remove: 'Either.map_left', rename: 'Either.is_right',
  },
  {
    language: 'Java', source: fromTar('/usr/src/bsh-src/bsh.tar.gz', 'src/bsh/NameSpace.java'), file: 'src/bsh/NameSpace.java', comment: '//',
    cite: ['NameSpace', 'NameSpace.setName', 'NameSpace.getName', 'NameSpace.getParent', 'NameSpace.toString'],
    statement: 'touched();', body: 'NameSpace.setName',
    signature: { symbol: 'NameSpace.getParent', from: 'public NameSpace getParent() {', to: '@Deprecated public NameSpace getParent() {' },
    remove: 'NameSpace.toString', rename: 'NameSpace.getName',
  },
  {
    language: 'C#', source: () => path.join(debianSourceDir('newtonsoft-json'), 'Src/Newtonsoft.Json/Linq/JTokenWriter.cs'), file: 'src/Linq/JTokenWriter.cs', comment: '//',
    cite: ['JTokenWriter', 'JTokenWriter.WriteStartObject', 'JTokenWriter.AddParent', 'JTokenWriter.RemoveParent', 'JTokenWriter.WriteNull'],
    statement: 'touched();', body: 'JTokenWriter.AddParent',
    signature: { symbol: 'JTokenWriter.AddParent', from: 'private void AddParent(JContainer container)', to: '[Obsolete] private void AddParent(JContainer container)' },
    remove: 'JTokenWriter.RemoveParent', rename: 'JTokenWriter.WriteNull',
  },
  {
    language: 'Ruby', source: () => '/usr/lib/ruby/3.1.0/benchmark.rb', file: 'lib/benchmark.rb', comment: '#',
    cite: ['Benchmark', 'Benchmark.realtime', 'Benchmark.Tms', 'Benchmark.Tms.to_a', 'Benchmark.Tms.format'],
    statement: 'touched', body: 'Benchmark.Tms.to_a',
    signature: { symbol: 'Benchmark.Tms.format', from: 'def format(format = nil, *args)', to: 'def format(format = nil, *rest)' },
    remove: 'Benchmark.realtime', rename: 'Benchmark.Tms.to_a',
  },
  {
    language: 'PHP', source: () => '/usr/share/php/Psr/Log/AbstractLogger.php', file: 'src/AbstractLogger.php', comment: '//',
    cite: ['AbstractLogger', 'AbstractLogger.emergency', 'AbstractLogger.alert', 'AbstractLogger.critical', 'AbstractLogger.debug'],
    statement: 'touched();', body: 'AbstractLogger.alert',
    signature: { symbol: 'AbstractLogger.critical', from: 'public function critical($message, array $context = array())', to: 'public function critical($message, array $context = [])' },
    remove: 'AbstractLogger.debug', rename: 'AbstractLogger.emergency',
  },
  {
    language: 'C', source: () => '/usr/share/doc/libpng-dev/examples/example.c', file: 'src/example.c', comment: '//',
    cite: ['check_if_png', 'read_png', 'process_data', 'info_callback', 'row_callback'],
    statement: 'touched();', body: 'process_data',
    signature: { symbol: 'check_if_png', from: 'int check_if_png(char *file_name, FILE **fp)', to: 'int check_if_png(const char *file_name, FILE **fp)' },
    // info_callback's body is empty once comments go, like end_callback's: deleting it is no rename.
    remove: 'info_callback', rename: 'row_callback',
  },
  {
    language: 'C++', source: () => '/usr/src/googletest/googlemock/src/gmock-cardinalities.cc', file: 'src/cardinalities.cc', comment: '//',
    cite: ['testing.FormatTimes', 'testing.CardinalityBetween', 'testing.CardinalityAtLeast', 'testing.BetweenCardinalityImpl.IsSatisfiedByCallCount', 'testing.Cardinality.DescribeActualCallCountTo'],
    statement: 'touched();', body: 'testing.Cardinality.DescribeActualCallCountTo',
    signature: { symbol: 'testing.FormatTimes', from: 'inline std::string FormatTimes(int n) {', to: 'inline std::string FormatTimes(long n) {' },
    remove: 'testing.CardinalityBetween', rename: 'testing.FormatTimes',
  },
];

describe('drift in the languages tree-sitter parses, on real code', function () {
  this.timeout(20000);

  for (const real of SOURCES) {
    describe(real.language, () => {
      let root: string;
      let original: string;
      let engine: () => DriftEngine;
      const parser = new SourceParser();
      const cited = (symbol: string) => `${real.file}:${symbol}`;

      const write = (text: string) => fs.writeFileSync(path.join(root, real.file), text);
      const symbolsOf = async (text: string) => {
        await parser.prepare(real.file);
        return parser.parse(real.file, text).symbols;
      };
      const issues = async () => {
        const page = parsePage('.wiki/pages/code.md', 'code', fs.readFileSync(path.join(root, '.wiki/pages/code.md')));
        const report = await engine().check([page]);
        return report.issues.map((issue) => `${issue.code} ${issue.data.symbol}${issue.data.renamedTo ? ` → ${issue.data.renamedTo}` : ''}`).sort();
      };
      /** The container cited with `symbol`, whose shape a change to that member changes. */
      const containerOf = (symbol: string) => real.cite.filter((other) => symbol.startsWith(`${other}.`) && !symbol.slice(other.length + 1).includes('.'));

      before(async () => {
        root = tempDir(`repo-wiki-${real.language.replace(/\W/g, '')}-`);
        original = fs.readFileSync(real.source(), 'utf8');
        fs.mkdirSync(path.dirname(path.join(root, real.file)), { recursive: true });
        write(original);
        const files = new WorkspaceFiles(root, { syncReads: true });
        engine = () => new DriftEngine(root, files, parser, new WorkspaceSearch(root, files));
        const stamper = engine();
        const anchors: Record<string, string> = {};
        for (const symbol of real.cite) {
          const citation = parseCitationText(cited(symbol));
          assert.ok(citation?.symbol, `${cited(symbol)} is a citation`);
          const anchor = await stamper.currentAnchor(citation);
          assert.ok(anchor, `${cited(symbol)} resolves in the real file`);
          anchors[cited(symbol)] = anchor;
        }
        fs.mkdirSync(path.join(root, '.wiki/pages'), { recursive: true });
        fs.writeFileSync(path.join(root, '.wiki/pages/code.md'), pageText('Code', `${real.cite.map((symbol) => `- \`${cited(symbol)}\``).join('\n')}\n`, { anchors: JSON.stringify(anchors) }));
      });
      beforeEach(() => write(original));
      after(() => fs.rmSync(root, { recursive: true, force: true }));

      it('every cited symbol matches its stamp: no false positive', async () => {
        assert.deepEqual(await issues(), []);
      });

      it('comments added before every cited declaration and at the end are not drift', async () => {
        const symbols = await symbolsOf(original);
        const starts = new Set(real.cite.map((symbol) => symbols.get(symbol)!.startLine));
        const lines = original.split('\n').flatMap((line, i) => (starts.has(i) ? [`${/^\s*/.exec(line)![0]}${real.comment} reviewed`, line] : [line]));
        write(`${lines.join('\n')}\n${real.comment} the end\n`);
        assert.deepEqual(await issues(), []);
      });

      it('spaces added at the ends of lines and blank lines between declarations are not drift', async () => {
        const symbols = await symbolsOf(original);
        const starts = new Set(real.cite.map((symbol) => symbols.get(symbol)!.startLine));
        write(original.split('\n').map((line) => (/[;{)]\s*$|^\s*(def|end|class)\b/.test(line) ? `${line}   ` : line)).flatMap((line, i) => (starts.has(i) ? ['', line] : [line])).join('\n'));
        assert.deepEqual(await issues(), []);
      });

      it('a statement added to a body is body-changed on that symbol alone', async () => {
        const symbol = (await symbolsOf(original)).get(real.body)!;
        const lines = original.split('\n');
        const last = lines[symbol.endLine];
        // Before the closing line (`}`, `end`); in Python, before the last statement, at its indentation.
        const indent = real.language === 'Python' ? /^\s*/.exec(last)![0] : `${/^\s*/.exec(last)![0]}    `;
        lines.splice(symbol.endLine, 0, `${indent}${real.statement}`);
        write(lines.join('\n'));
        assert.deepEqual(await issues(), [`body-changed ${real.body}`]);
      });

      it('a changed signature is signature-changed on the symbol, and on the shape of its cited container', async () => {
        assert.equal(original.split(real.signature.from).length, 2, `the file has ${real.signature.from} once`);
        write(original.replace(real.signature.from, real.signature.to));
        assert.deepEqual(await issues(), [...containerOf(real.signature.symbol), real.signature.symbol].map((symbol) => `signature-changed ${symbol}`).sort());
      });

      it('a deleted declaration is missing-symbol', async () => {
        const symbol = (await symbolsOf(original)).get(real.remove)!;
        const lines = original.split('\n');
        lines.splice(symbol.startLine, symbol.endLine - symbol.startLine + 1);
        write(lines.join('\n'));
        assert.deepEqual(await issues(), [`missing-symbol ${real.remove}`, ...containerOf(real.remove).map((symbol) => `signature-changed ${symbol}`)].sort());
      });

      it('a renamed declaration is renamed-symbol, with its new name', async () => {
        const symbol = (await symbolsOf(original)).get(real.rename)!;
        const name = real.rename.split('.').pop()!;
        const lines = original.split('\n');
        const line = lines.findIndex((text, i) => i >= symbol.startLine && new RegExp(`\\b${name}\\b`).test(text));
        lines[line] = lines[line].replace(new RegExp(`\\b${name}\\b`), `${name}Renamed`);
        write(lines.join('\n'));
        const renamed = `${real.rename}Renamed`;
        assert.deepEqual(await issues(), [`renamed-symbol ${real.rename} → ${renamed}`, ...containerOf(real.rename).map((container) => `signature-changed ${container}`)].sort());
      });
    });
  }
});

describe('a parse that wants some names', function () {
  this.timeout(60000);

  it('answers each wanted name as a whole parse does, in every language: a member without its container, a container with all its members', async () => {
    const parser = new TreeSitterParser();
    for (const real of SOURCES) {
      const text = fs.readFileSync(real.source(), 'utf8');
      await parser.prepare(real.file);
      const whole = parser.parse(real.file, text);
      for (const name of real.cite) {
        const wanted = parser.parse(real.file, text, { names: [name] });
        const [got, expected] = [wanted.get(name)!, whole.get(name)!];
        assert.ok(got, `${real.language} ${name}`);
        assert.deepEqual([got.kind, got.startLine, got.endLine, got.sig, got.body, got.emptyBody === true], [expected.kind, expected.startLine, expected.endLine, expected.sig, expected.body, expected.emptyBody === true], `${real.language} ${name}`);
        if (CONTAINER_KINDS.has(expected.kind)) assert.equal(containerShape(wanted, got), containerShape(whole, expected), `${real.language} ${name}: shape`);
      }
      assert.equal(parser.parse(real.file, text, { names: real.cite, wholeFile: true }).fingerprint, whole.fingerprint, `${real.language}: whole-file fingerprint`);
    }
  });

  it('walks only the declarations whose text holds a wanted name, and says so; a name it cannot find gets the whole outline', async () => {
    const parser = new TreeSitterParser();
    const python = SOURCES.find((real) => real.language === 'Python')!;
    const text = fs.readFileSync(python.source(), 'utf8');
    await parser.prepare(python.file);
    const wanted = parser.parse(python.file, text, { names: ['py_scanstring'] });
    assert.deepEqual(wanted.partial && [...wanted.partial.names], ['py_scanstring']);
    assert.ok(wanted.get('py_scanstring'));
    assert.equal(wanted.get('JSONDecoder.decode'), undefined, 'a class that never names it is not walked');
    assert.throws(() => wanted.symbols, /Only the wanted declarations .* parse it again/);
    // Not found: the whole outline decides, whether the name is gone or its declaration does not hold it as cited (a macro before it).
    const missing = parser.parse(python.file, text, { names: ['py_scanstring', 'NotDeclaredHere'] });
    assert.equal(missing.partial, undefined);
    assert.ok(missing.symbols.get('JSONDecoder.decode'));
    const cpp = SOURCES.find((real) => real.language === 'C++')!;
    await parser.prepare(cpp.file);
    const unspaced = parser.parse(cpp.file, fs.readFileSync(cpp.source(), 'utf8'), { names: ['testing.CardinalityBetween'] });
    assert.equal(unspaced.partial, undefined);
    assert.ok(unspaced.get('testing.CardinalityBetween'), 'declared as `GTEST_API_ Cardinality Between(...)`');
    // A name that is no plain word need not be in the text as cited: the whole outline.
    assert.equal(parser.parse(python.file, text, { names: ['operator+'] }).partial, undefined);
  });

  it('finds a wanted name only as a whole word: inside a longer name, a string or a call, it walks no more than it must and misses nothing', async () => {
    const parser = new TreeSitterParser();
    await parser.prepare('m.py');
    const text = [
      'class Renderer:',
      '    def render_all(self): return "render"',
      'class Other:',
      '    def prerender(self): pass',
      'class Page:',
      '    def render(self): return 1',
      '    def render(self, x): return 2',
      'def größe(): return render',
      '',
    ].join('\n');
    const whole = parser.parse('m.py', text);
    const some = parser.parse('m.py', text, { names: ['Page.render'] });
    assert.ok(some.partial, 'every wanted name was found');
    assert.equal(some.get('Other.prerender'), undefined, 'a longer word holding it is not the word');
    assert.ok(some.get('Renderer.render_all'), 'a class whose text holds the word (a string) is walked');
    const [found, expected] = [some.get('Page.render')!, whole.get('Page.render')!];
    assert.deepEqual([found.startLine, found.endLine, found.sig, found.body], [expected.startLine, expected.endLine, expected.sig, expected.body], 'both definitions, as a whole parse has them');
    // A word that is not plain ASCII is not looked for: the whole outline answers it.
    const wide = parser.parse('m.py', text, { names: ['größe'] });
    assert.equal(wide.partial, undefined);
    assert.equal(wide.get('größe')?.body, whole.get('größe')!.body);
  });

  it('is kept for what it answers: a later parse wanting more, or everything, of the same text parses again', async () => {
    const parser = new SourceParser(false);
    const python = SOURCES.find((real) => real.language === 'Python')!;
    const text = fs.readFileSync(python.source(), 'utf8');
    await parser.prepare(python.file);
    const some = parser.parse(python.file, text, { names: ['py_scanstring'] });
    assert.equal(parser.parse(python.file, text, { names: ['py_scanstring'] }), some, 'the same answers, not a new parse');
    const more = parser.parse(python.file, text, { names: ['JSONDecoder.decode'] });
    assert.notEqual(more, some);
    assert.ok(more.get('JSONDecoder.decode'));
    const all = parser.parse(python.file, text);
    assert.equal(all.partial, undefined);
    assert.ok(all.symbols.size > 10);
    assert.equal(parser.parse(python.file, text, { names: ['JSONObject'] }), all, 'a whole parse answers any name');
  });
});

describe('a full scan parses on worker threads', function () {
  this.timeout(60000);

  it('a parse thread answers what is wanted of a file in every language as a whole parse here does', async () => {
    const here = new TreeSitterParser();
    const pool = ParsePool.beside(path.dirname(require.resolve('../../../src/adapters/treesitter/parseWorker')), (file) => path.extname(file), () => undefined)!;
    assert.ok(pool, 'the worker script is built beside the parser');
    try {
      for (const real of SOURCES) {
        const bytes = fs.readFileSync(real.source());
        const text = new TextDecoder().decode(bytes); // as the drift engine reads a file (a byte order mark dropped)
        await here.prepare(real.file);
        const wanted = { names: [...real.cite, 'NotDeclaredHere'], wholeFile: true };
        const answers = (await pool.answers(real.file, async () => bytes, wanted))!;
        assert.equal(answers, here.answersOf(real.file, text, wanted), real.language);
        const partial = unpackAnswers(real.file, answers, wanted);
        const whole = here.parse(real.file, text);
        for (const name of real.cite) {
          const [answered, parsed] = [partial.get(name)!, whole.get(name)!];
          assert.deepEqual([answered.kind, answered.startLine, answered.endLine, answered.sig], [parsed.kind, parsed.startLine, parsed.endLine, parsed.sig], `${real.language} ${name}`);
          if (CONTAINER_KINDS.has(parsed.kind)) assert.equal(partial.shapeOf!(name), containerShape(whole, parsed), `${real.language} ${name}: shape`);
          else assert.deepEqual([answered.body, answered.emptyBody === true], [parsed.body, parsed.emptyBody === true], `${real.language} ${name}: body`);
        }
        assert.equal(partial.get('NotDeclaredHere'), undefined);
        assert.equal(partial.fingerprint, whole.fingerprint, `${real.language}: whole-file fingerprint`);
      }
    } finally {
      await pool.close();
    }
  });

  it('a class declared twice (if/else) and parsed on a thread is read here without its grammar or text: its signature and shape', async () => {
    const parser = new TreeSitterParser(); // never prepared on this thread
    const threads = parser.parseThreads(['m.py'])!;
    try {
      const text = 'import sys\nif sys.version_info >= (3,):\n    class Box:\n        def get(self):\n            # newer\n            return 1\nelse:\n    class Box:\n        def get(self):\n            return 0\n';
      const parsed = (await threads.parse('m.py', async () => new TextEncoder().encode(text), { names: ['Box'] }))!;
      const box = parsed.get('Box')!;
      assert.match(box.sig, /^[0-9a-f]{8}$/);
      assert.match(parsed.shapeOf!('Box')!, /^[0-9a-f]{8}$/);
      // Nothing else of the file is here: reading it is an error the engine never makes (it parses the file again first).
      assert.deepEqual(parsed.partial, { names: new Set(['Box']), wholeFile: false });
      assert.throws(() => parsed.symbols, /Only the wanted symbols of m\.py were parsed/);
      assert.throws(() => box.body, /The body of Box in m\.py was not hashed on the parse thread/);
    } finally {
      await threads.release();
    }
  });

  it('a batch of files checked on threads gets the verdicts of one thread: none when clean, a rename when renamed', async () => {
    const root = tempDir('repo-wiki-batch-');
    try {
      const copies = SOURCES.flatMap((real) => Array.from({ length: 5 }, (_, i) => ({ real, file: `copy${i}/${real.file}` })));
      for (const { real, file } of copies) {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.copyFileSync(real.source(), path.join(root, file));
      }
      const files = new WorkspaceFiles(root, { syncReads: true });
      const engine = (parser: SourceParser) => new DriftEngine(root, files, parser, new WorkspaceSearch(root, files));
      const stamper = engine(new SourceParser(false));
      const anchors: Record<string, string> = {};
      for (const { real, file } of copies) anchors[`${file}:${real.rename}`] = (await stamper.currentAnchor({ path: file, symbol: real.rename, outside: false }))!;
      const page = () => parsePage('.wiki/pages/all.md', 'all', new TextEncoder().encode(pageText('All', Object.keys(anchors).map((citation) => `- \`${citation}\``).join('\n'), { anchors: JSON.stringify(anchors) })));
      assert.ok(copies.length >= 32, 'enough files for a batch on threads');
      assert.deepEqual((await engine(new SourceParser()).check([page()])).issues, []);

      const python = copies.find(({ real }) => real.language === 'Python')!;
      const name = python.real.rename;
      const target = path.join(root, python.file);
      fs.writeFileSync(target, fs.readFileSync(target, 'utf8').replace(new RegExp(`\\bclass ${name}\\b|\\bdef ${name}\\b|\\b${name} = `), (match) => match.replace(name, `${name}Renamed`)));
      const issues = (await engine(new SourceParser()).check([page()])).issues.map((issue) => `${issue.code} ${issue.data.citation} ${issue.data.renamedTo ?? ''}`.trim());
      assert.deepEqual(issues, [`renamed-symbol ${python.file}:${name} ${name}Renamed`]);

      // A file deleted before a thread is ready to read it is missing, as on one thread.
      const gone = copies.find(({ real }) => real.language === 'Go')!;
      fs.rmSync(path.join(root, gone.file));
      const verdicts = async (parser: SourceParser) => (await engine(parser).check([page()])).issues.map((issue) => `${issue.code} ${issue.data.citation}`).sort();
      const oneThread = await verdicts(new SourceParser(false));
      assert.ok(oneThread.some((verdict) => verdict.endsWith(`${gone.file}:${gone.real.rename}`) && !verdict.startsWith('renamed')), oneThread.join('\n'));
      assert.deepEqual(await verdicts(new SourceParser()), oneThread);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('what the parse threads did not answer', function () {
  this.timeout(60000);

  it('is parsed again here: a symbol no page cited, a whole file, a container stamped by its body before shapes', async () => {
    const java = SOURCES.find((real) => real.language === 'Java')!;
    const root = tempDir('repo-wiki-partial-');
    const text = fs.readFileSync(java.source(), 'utf8');
    // Enough files for the check to parse them on threads.
    const files = Array.from({ length: 40 }, (_, i) => `copy${i}/${java.file}`);
    for (const file of files) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    const workspace = new WorkspaceFiles(root, { syncReads: true });
    const engine = (parser: SourceParser) => new DriftEngine(root, workspace, parser, new WorkspaceSearch(root, workspace));
    const here = new SourceParser(false);
    await here.prepare(java.file);
    const container = here.parse(java.file, text).get('NameSpace')!;
    const oneThread = engine(here);
    const anchors: Record<string, string> = {};
    for (const file of files) {
      anchors[`${file}:NameSpace.setName`] = (await oneThread.currentAnchor({ path: file, symbol: 'NameSpace.setName', outside: false }))!;
      anchors[`${file}:NameSpace`] = `sig:${container.sig} body:${container.body}`; // as stamped before containers had shapes
    }
    const page = () => parsePage('.wiki/pages/all.md', 'all', new TextEncoder().encode(pageText('All', Object.keys(anchors).map((citation) => `- \`${citation}\``).join('\n'), { anchors: JSON.stringify(anchors) })));

    const threaded = engine(new SourceParser());
    assert.deepEqual((await threaded.check([page()])).issues, [], 'the container stamped by its body matches once its file is parsed again here');
    // The same engine, whose files were parsed on threads for those two symbols only, is asked for more.
    const other = { path: files[0], symbol: 'NameSpace.getParent', outside: false };
    assert.equal(await threaded.currentAnchor(other), await oneThread.currentAnchor(other));
    assert.equal(await threaded.currentAnchor({ path: files[1], outside: false }), await oneThread.currentAnchor({ path: files[1], outside: false }));
    assert.deepEqual(await threaded.locate(other), await oneThread.locate(other));

    // A member's body edited: the container stamped by its body now differs, on threads as on one thread.
    const edited = files[2];
    const lines = text.split('\n');
    const member = here.parse(java.file, text).get(java.body)!;
    lines.splice(member.endLine, 0, `        ${java.statement}`);
    fs.writeFileSync(path.join(root, edited), lines.join('\n'));
    const verdicts = async (parser: SourceParser) => (await engine(parser).check([page()])).issues.map((issue) => `${issue.code} ${issue.data.citation}`).sort();
    const expected = [`body-changed ${edited}:NameSpace`, `body-changed ${edited}:${java.body}`];
    assert.deepEqual(await verdicts(new SourceParser()), expected);
    assert.deepEqual(await verdicts(new SourceParser(false)), expected);
  });
});

describe('what a batch on threads keeps', function () {
  this.timeout(30000);

  it('each file\'s answers, by a digest of its bytes: the same bytes are not parsed again, unless more is wanted of them', async () => {
    const python = SOURCES.find((real) => real.language === 'Python')!;
    const original = fs.readFileSync(python.source());
    const bytes = () => async () => Uint8Array.from(original); // each parse moves its bytes to a thread
    const parser = new SourceParser();
    const batch = () => parser.threads([python.file])!;
    const first = batch();
    const answered = await first.parse(python.file, bytes(), { names: ['JSONDecoder'] });
    await first.release();
    const second = batch();
    try {
      assert.equal(await second.parse(python.file, bytes(), { names: ['JSONDecoder'] }), answered, 'the same answers, not a new parse');
      const more = await second.parse(python.file, bytes(), { names: ['JSONDecoder', 'py_scanstring'] });
      assert.notEqual(more, answered);
      assert.ok(more.get('py_scanstring'));
      const edited = await second.parse(python.file, async () => new TextEncoder().encode(`${original}\n# edited\n`), { names: ['JSONDecoder'] });
      assert.notEqual(edited, more, 'other bytes are parsed');
      assert.equal(edited.get('JSONDecoder')!.sig, answered.get('JSONDecoder')!.sig);
    } finally {
      await second.release();
    }
  });
});

describe('the parse threads when something goes wrong', function () {
  this.timeout(20000);
  const bytesOf = (text: string) => async () => new TextEncoder().encode(text);
  const script = (body: string) => {
    const file = path.join(tempDir('repo-wiki-pool-'), 'parseWorker.js');
    fs.writeFileSync(file, `const { parentPort } = require('node:worker_threads');\nparentPort.on('message', (message) => { ${body} });\n`);
    return file;
  };

  it('a thread that dies fails its parses with why, and the next parse gets a new thread', async () => {
    const pool = new ParsePool(script(`if (message.file === 'die.py') process.exit(3); if (message.id !== undefined) parentPort.postMessage({ answered: [{ id: message.id, answers: '' }] });`), () => 'python', () => undefined, 1);
    try {
      await assert.rejects(pool.answers('die.py', bytesOf('x = 1')), /A parse thread stopped \(exit code 3\)/);
      assert.equal(await pool.answers('ok.py', bytesOf('x = 1')), '', 'a new thread parses');
    } finally {
      await pool.close();
    }
  });

  it('a thread is given a file\'s bytes only when it is ready for them: of ten files waiting on a busy thread, four are read', async () => {
    const pool = new ParsePool(script('/* busy: never answers */'), () => 'python', () => undefined, 1);
    let reads = 0;
    const files = Array.from({ length: 10 }, (_, i) => `f${i}.py`);
    const waiting = files.map((file) => assert.rejects(pool.answers(file, async () => (reads++, new TextEncoder().encode('x = 1'))), /The parse threads were closed/));
    try {
      for (let waited = 0; reads < 4 && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(reads, 4, 'one file parsing, three read and waiting: the other six unread');
    } finally {
      await pool.close();
    }
    await Promise.all(waiting);
    assert.equal(reads, 4, 'a closed pool reads nothing more');
  });

  it('a file that cannot be read fails its own parse only; a read that finds nothing to parse sends the thread nothing', async () => {
    const pool = new ParsePool(script(`if (message.file === 'known.py') process.exit(4); if (message.id !== undefined) parentPort.postMessage({ answered: [{ id: message.id, answers: message.file }] });`), () => 'python', () => undefined, 1);
    try {
      const results = await Promise.allSettled([
        pool.answers('gone.py', async () => { throw new Error('ENOENT: gone.py'); }),
        pool.answers('bad.py', () => { throw new Error('a read that throws at once'); }),
        pool.answers('known.py', async () => undefined),
        pool.answers('ok.py', bytesOf('x = 1')),
      ]);
      assert.deepEqual(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message)), ['ENOENT: gone.py', 'a read that throws at once', undefined, 'ok.py']);
    } finally {
      await pool.close();
    }
  });

  it('closing the pool fails the parses still waiting, rather than leaving them hanging', async () => {
    const pool = new ParsePool(script('/* never answers */'), () => 'python', () => undefined, 1);
    const waiting = ['a.py', 'b.py', 'c.py'].map((file) => assert.rejects(pool.answers(file, bytesOf('x = 1')), new RegExp(`The parse threads were closed before ${file.replace('.', '\\.')} was parsed`)));
    await pool.close();
    await Promise.all(waiting);
  });

  it('two batches at once share the threads: the first one released leaves the other its parses, the last one ends them', async () => {
    const pool = new ParsePool(script(`if (message.id === undefined || message.file === 'stuck.py') return; setTimeout(() => parentPort.postMessage({ answered: [{ id: message.id, answers: message.file }] }), 50);`), () => 'python', () => undefined, 1);
    try {
      pool.start(['map.py']);
      pool.start(['drift.py']);
      assert.equal(await pool.answers('map.py', bytesOf('x = 1')), 'map.py');
      const drift = pool.answers('drift.py', bytesOf('x = 1'));
      await pool.release();
      assert.equal(await drift, 'drift.py', 'the other batch parses on');
      const stuck = assert.rejects(pool.answers('stuck.py', bytesOf('x = 1')), /The parse threads were closed before stuck\.py was parsed/);
      await pool.release();
      await stuck;
    } finally {
      await pool.close();
    }
  });

  it('a thread hands this process the WebAssembly it compiled, the runtime and each grammar, which outlive the thread (their code is shared)', async () => {
    const kept = new Map<string, WebAssembly.Module>();
    const pool = ParsePool.beside(path.dirname(require.resolve('../../../src/adapters/treesitter/parseWorker')), (file) => path.extname(file), (file, module) => kept.set(file, module))!;
    try {
      for (const real of SOURCES) assert.equal(typeof (await pool.answers(real.file, async () => fs.readFileSync(real.source()))), 'string', real.language);
    } finally {
      await pool.close();
    }
    const grammars = new Set(SOURCES.map((real) => LANGUAGES[path.extname(real.file)].grammar));
    assert.deepEqual([...kept.keys()].sort(), ['tree-sitter.wasm', ...grammars].sort(), 'each file once, from whichever thread compiled it');
    for (const [file, module] of kept) assert.ok(module instanceof WebAssembly.Module && WebAssembly.Module.exports(module).length > 0, file);
  });

  it('a file no grammar reads fails its parse with the parser\'s message', async () => {
    const pool = ParsePool.beside(path.dirname(require.resolve('../../../src/adapters/treesitter/parseWorker')), (file) => path.extname(file), () => undefined)!;
    try {
      await assert.rejects(pool.answers('notes.txt', bytesOf('plain text')), /Parsing notes\.txt failed on a worker thread: No grammar is loaded for notes\.txt/);
    } finally {
      await pool.close();
    }
  });
});
