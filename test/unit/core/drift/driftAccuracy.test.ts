// Accuracy of drift detection end to end: the real TypeScript parser, file system and workspace
// search on a copy of test/fixtures/drift-project, whose pages cite a symbol of every kind. Each
// test edits the copy the way a developer would and asserts the COMPLETE list of issues, so a
// false positive on any other citation fails the test as surely as a missed change.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorkspaceFiles } from '../../../../src/adapters/files/workspaceFiles';
import { TsSymbolParser } from '../../../../src/adapters/typescript/tsSymbolParser';
import { WorkspaceSearch } from '../../../../src/adapters/workspaceSearch';
import { findCitations, TS_LIKE } from '../../../../src/core/drift/citations';
import { DriftEngine, type DriftIssue } from '../../../../src/core/drift/driftEngine';
import { stampPage } from '../../../../src/core/drift/stamp';
import { symbolAnchor } from '../../../../src/core/drift/symbols';
import { Wiki } from '../../../../src/core/wiki/wiki';
import { fixedClock, pageText } from '../../../support/fakes';

// Compiled, this file is out/test/unit/core/drift/driftAccuracy.test.js.
const FIXTURE = path.resolve(__dirname, '../../../../../test/fixtures/drift-project');
const parser = new TsSymbolParser();

/** A throwaway copy of the fixture project. */
class Project {
  readonly root = fs.mkdtempSync(path.join(os.tmpdir(), 'drift-accuracy-'));
  readonly files = new WorkspaceFiles(this.root, { syncReads: true });
  readonly wiki = new Wiki(this.root, this.files, fixedClock());

  constructor() {
    fs.cpSync(FIXTURE, this.root, { recursive: true });
  }

  dispose(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }

  read(file: string): string {
    return fs.readFileSync(path.join(this.root, file), 'utf8');
  }

  write(file: string, text: string): void {
    fs.mkdirSync(path.dirname(path.join(this.root, file)), { recursive: true });
    fs.writeFileSync(path.join(this.root, file), text);
  }

  remove(file: string): void {
    fs.rmSync(path.join(this.root, file));
  }

  move(from: string, to: string): void {
    this.write(to, this.read(from));
    this.remove(from);
  }

  /** Replaces the one occurrence of `from`; failing loudly keeps a stale edit from passing silently. */
  edit(file: string, from: string, to: string): void {
    const text = this.read(file);
    assert.equal(text.split(from).length - 1, 1, `${file} contains ${JSON.stringify(from)} exactly once`);
    this.write(file, text.replace(from, () => to));
  }

  /** Removes the declaration whose first line contains `marker`, through its closing line; returns it. */
  cut(file: string, marker: string): string {
    const lines = this.read(file).split('\n');
    const start = lines.findIndex((line) => line.includes(marker));
    assert.ok(start >= 0, `${file} contains ${marker}`);
    const indent = /^\s*/.exec(lines[start])![0];
    const end = lines[start].endsWith(';') ? start : lines.findIndex((line, i) => i > start && line.startsWith(`${indent}}`));
    const removed = lines.splice(start, end - start + 1);
    this.write(file, lines.join('\n'));
    return `${removed.join('\n')}\n`;
  }

  /** TS/JS files under src/, workspace-relative. */
  sources(): string[] {
    return (fs.readdirSync(path.join(this.root, 'src'), { recursive: true }) as string[])
      .map((name) => `src/${name.split(path.sep).join('/')}`)
      .filter((file) => TS_LIKE.test(file))
      .sort();
  }

  engine(search = new WorkspaceSearch(this.root, this.files)): DriftEngine {
    return new DriftEngine(this.root, this.files, parser, search);
  }

  async issues(engine = this.engine()): Promise<DriftIssue[]> {
    return (await engine.check(await this.wiki.loadPages())).issues;
  }
}

/** `code citation`, with `→ movedTo` for moves and `→ renamedTo` for renames; sorted, so a list compares as a whole. */
function summary(issues: readonly DriftIssue[]): string[] {
  return issues.map((i) => `${i.code} ${i.data.citation}${i.data.movedTo ? ` → ${i.data.movedTo}` : ''}${i.data.renamedTo ? ` → ${i.data.renamedTo}` : ''}`).sort();
}

/** Every issue sits on its citation as written in the page file (`formatPrice()` included). */
function assertAtCitations(project: Project, issues: readonly DriftIssue[]): void {
  for (const issue of issues) {
    const line = project.read(issue.page).split('\n')[issue.range.start.line];
    assert.equal(issue.range.end.line, issue.range.start.line);
    const written = line.slice(issue.range.start.character, issue.range.end.character);
    assert.equal(written.replace(/\(\)$/, ''), issue.data.citation, `${issue.page}:${issue.range.start.line}`);
  }
}

async function assertIssues(project: Project, expected: string[]): Promise<void> {
  const issues = await project.issues();
  assert.deepEqual(summary(issues), [...expected].sort());
  assertAtCitations(project, issues);
}

// Formatting-only rewrites. The fixture's code style (see its README) keeps each of them
// token-preserving: semicolons everywhere, no quotes or `, ` inside strings, no `//` in strings.
const REFORMATS: Record<string, (text: string) => string> = {
  'tabs and CRLF line endings': (text) => text.replace(/^(?: {2})+/gm, (indent) => '\t'.repeat(indent.length / 2)).replace(/\n/g, '\r\n'),
  'indentation, blank lines and repeated spaces squeezed out': (text) => text.replace(/^[ \t]+/gm, '').replace(/\n{2,}/g, '\n').replace(/ {2,}/g, ' '),
  'one argument per line with trailing commas': (text) =>
    text.replace(/\(([^()\n]*, [^()\n]*)\)/g, (_, list: string) => `(\n${list.split(', ').map((item) => `    ${item},\n`).join('')})`),
  'unions one member per line with a leading |': (text) =>
    text.replace(/ = ((?:'\w+' \| )+'\w+');/g, (_, union: string) => ` =\n${union.split(' | ').map((member) => `  | ${member}`).join('\n')};`),
  'double quotes': (text) => text.replace(/'([^'\n]*)'/g, '"$1"'),
  'JSX text on its own lines': (text) => text.replace(/(<\w[^<>]*>)([^<>{}\n]+)(<\/)/g, '$1\n      $2\n    $3'),
  'comments reworded, added and removed': (text) =>
    text.replace(/\/\*\*[\s\S]*?\*\//g, '/**\n * Reworded.\n */').replace(/\/\/.*$/gm, '').replace(/^(\s*)export /gm, '$1/* added */ export '),
};

describe('drift accuracy on the fixture project', function () {
  this.timeout(10000); // the first test also loads TypeScript
  let project: Project;
  beforeEach(() => {
    project = new Project();
  });
  afterEach(() => project.dispose());

  it('finds no drift in the untouched fixture: every citation resolves and every anchor matches', async () => {
    const report = await project.engine().check(await project.wiki.loadPages());
    assert.deepEqual(report, { pagesChecked: 3, citationsChecked: 38, issues: [] });
  });

  it('the fixture cites a symbol of every kind, a TS/JS file and a non-TS file', async () => {
    const citations = (await project.wiki.loadPages()).flatMap((page) => findCitations(page));
    const kinds = new Set(citations.filter((c) => c.symbol).map((c) => parser.parse(c.path, project.read(c.path)).symbols.get(c.symbol!)!.kind));
    assert.deepEqual([...kinds].sort(), [
      'accessor', 'class', 'constructor', 'default', 'enum', 'enum-member', 'function', 'interface', 'method', 'namespace', 'property', 'type', 'variable',
    ]);
    const wholeFiles = citations.filter((c) => !c.symbol).map((c) => c.path).sort();
    assert.deepEqual(wholeFiles, ['config/settings.json', 'src/checkout.ts', 'src/legacy.js']);
  });

  describe('a deleted symbol is missing; a renamed one is found under its new name', () => {
    it('deleting a function', async () => {
      project.cut('src/money.ts', 'export const roundPrice');
      await assertIssues(project, ['missing-symbol src/money.ts:roundPrice']);
    });

    it('renaming a function that other files still mention', async () => {
      project.edit('src/money.ts', 'export function formatPrice(', 'export function formatAmount(');
      await assertIssues(project, ['renamed-symbol src/money.ts:formatPrice → formatAmount']);
    });

    it('renaming a method; its class lost a member', async () => {
      project.edit('src/cart.ts', '  add(item: Item): void {', '  append(item: Item): void {');
      await assertIssues(project, ['renamed-symbol src/cart.ts:Cart.add → Cart.append', 'signature-changed src/cart.ts:Cart']);
    });

    it('renaming a class: the class and each cited member are renamed, nothing is missing', async () => {
      const text = project.read('src/cart.ts');
      project.write('src/cart.ts', text.replace('export class Cart ', 'export class Basket '));
      const members = ['', '.constructor', '.owner', '.currency', '.add', '.MAX_LINES', '.lines', '.size', '.total', '.note'];
      const issues = await project.issues();
      const cartIssues = summary(issues.filter((i) => i.data.citation.startsWith('src/cart.ts:Cart')));
      assert.deepEqual(cartIssues, members.map((member) => `renamed-symbol src/cart.ts:Cart${member} → Basket${member}`).sort());
    });

    it('renaming a file and a function in it: the function is found under its new name in the new file', async () => {
      project.move('src/money.ts', 'src/currency.ts');
      project.edit('src/currency.ts', 'export function formatPrice(', 'export function formatAmount(');
      const money = summary(await project.issues()).filter((issue) => issue.includes('src/money.ts'));
      assert.ok(money.includes('renamed-symbol src/money.ts:formatPrice → src/currency.ts → formatAmount'), money.join('\n'));
      assert.ok(money.includes('moved-symbol src/money.ts:parsePrice → src/currency.ts'), 'the others kept their names: moved');
    });

    it('renaming a function and changing its code at once is missing: nothing shows it is the same', async () => {
      project.edit('src/money.ts', 'export function formatPrice(', 'export function formatAmount(');
      project.edit('src/money.ts', 'toFixed(2)', 'toFixed(3)');
      await assertIssues(project, ['missing-symbol src/money.ts:formatPrice']);
    });

    it('deleting a function in a nested namespace; that namespace lost a member, the outer one did not', async () => {
      project.cut('src/catalog.ts', 'export function byName');
      await assertIssues(project, ['missing-symbol src/catalog.ts:Catalog.Search.byName', 'signature-changed src/catalog.ts:Catalog.Search']);
    });
  });

  describe('a symbol moved to another file is found there', () => {
    it('moving a function to a new file', async () => {
      project.write('src/rounding.ts', `import type { Money, Rounding } from './money';\n\n${project.cut('src/money.ts', 'export const roundPrice')}`);
      await assertIssues(project, ['moved-symbol src/money.ts:roundPrice → src/rounding.ts']);
    });

    it('moving a class: its members move with it', async () => {
      project.write('src/basket.ts', project.cut('src/cart.ts', 'export class Cart'));
      const members = ['', '.constructor', '.owner', '.currency', '.add', '.MAX_LINES', '.lines', '.size', '.total', '.note'];
      await assertIssues(project, members.map((member) => `moved-symbol src/cart.ts:Cart${member} → src/basket.ts`));
    });

    it('moving a file: the file citation is missing, its symbols moved', async () => {
      project.move('src/legacy.js', 'src/compat/legacy.js');
      await assertIssues(project, ['missing-file src/legacy.js', 'moved-symbol src/legacy.js:skuFromName → src/compat/legacy.js']);
    });
  });

  describe('a deleted file is missing', () => {
    it('a non-TS file', async () => {
      project.remove('config/settings.json');
      await assertIssues(project, ['missing-file config/settings.json']);
    });

    it('a TS file cited whole and by symbol', async () => {
      project.remove('src/legacy.js');
      await assertIssues(project, ['missing-file src/legacy.js', 'missing-file src/legacy.js:skuFromName']);
    });

    // Every module can have a `default`; another file's is a different export, not this one moved.
    it('a file whose default export is cited, while other files have one too', async () => {
      project.remove('src/defaults.ts');
      await assertIssues(project, ['missing-file src/defaults.ts:default']);
      project.remove('src/checkout.ts');
      await assertIssues(project, ['missing-file src/defaults.ts:default', 'missing-file src/checkout.ts', 'missing-file src/checkout.ts:default']);
    });
  });

  describe('a changed symbol is reported as a signature or a body change', () => {
    const edits: Array<{ what: string; file: string; from: string; to: string; expected: string[] }> = [
      {
        what: 'a parameter added to a function',
        file: 'src/money.ts', from: 'formatPrice(price: Money): string', to: 'formatPrice(price: Money, locale?: string): string',
        expected: ['signature-changed src/money.ts:formatPrice'],
      },
      {
        what: 'the return type of a function',
        file: 'src/checkout.ts', from: 'checkout(cart: Cart): string', to: 'checkout(cart: Cart): String',
        expected: ['signature-changed src/checkout.ts:default', 'body-changed src/checkout.ts'],
      },
      {
        what: 'a new overload',
        file: 'src/money.ts', from: 'export function parsePrice(cents: number): Money;', to: 'export function parsePrice(cents: number): Money;\nexport function parsePrice(cents: bigint): Money;',
        expected: ['signature-changed src/money.ts:parsePrice'],
      },
      {
        what: 'the parameters of a method',
        file: 'src/cart.ts', from: 'add(item: Item): void', to: 'add(item: Item, quantity = 1): void',
        expected: ['signature-changed src/cart.ts:Cart.add', 'signature-changed src/cart.ts:Cart'],
      },
      {
        what: 'the type of a getter',
        file: 'src/cart.ts', from: 'get size(): number', to: 'get size(): bigint',
        expected: ['signature-changed src/cart.ts:Cart.size', 'signature-changed src/cart.ts:Cart'],
      },
      {
        what: 'the default of a parameter property',
        file: 'src/cart.ts', from: 'private currency: Currency = Currency.Euro', to: 'private currency: Currency = Currency.Yen',
        expected: ['signature-changed src/cart.ts:Cart.currency', 'signature-changed src/cart.ts:Cart.constructor', 'signature-changed src/cart.ts:Cart'],
      },
      {
        what: 'the type of an interface member',
        file: 'src/cart.ts', from: 'readonly sku: string;', to: 'readonly sku: number;',
        expected: ['signature-changed src/cart.ts:Item.sku', 'signature-changed src/cart.ts:Item'],
      },
      {
        what: 'the return type of an interface method',
        file: 'src/cart.ts', from: 'describe(): string;', to: 'describe(): string[];',
        expected: ['signature-changed src/cart.ts:Item.describe', 'signature-changed src/cart.ts:Item'],
      },
      {
        what: 'the declared type of a constant',
        file: 'src/money.ts', from: 'DEFAULT_CURRENCY: Currency =', to: 'DEFAULT_CURRENCY: Currency.Euro =',
        expected: ['signature-changed src/money.ts:DEFAULT_CURRENCY'],
      },
      {
        what: 'the parameters of an arrow function constant',
        file: 'src/money.ts', from: '(price: Money, rounding: Rounding): Money =>', to: '(price: Money, rounding: Rounding = \'nearest\'): Money =>',
        expected: ['signature-changed src/money.ts:roundPrice'],
      },
      {
        what: 'the body of a function',
        file: 'src/money.ts', from: 'toFixed(2)', to: 'toFixed(3)',
        expected: ['body-changed src/money.ts:formatPrice'],
      },
      {
        what: 'the body of an arrow function constant',
        file: 'src/money.ts', from: 'rounding === \'down\' ? Math.floor', to: 'rounding === \'down\' ? Math.trunc',
        expected: ['body-changed src/money.ts:roundPrice'],
      },
      {
        what: 'the value of a constant',
        file: 'src/money.ts', from: '= Currency.Euro;', to: '= Currency.Dollar;',
        expected: ['body-changed src/money.ts:DEFAULT_CURRENCY'],
      },
      {
        what: 'the initial value of a let',
        file: 'src/money.ts', from: 'export let formatCount = 0;', to: 'export let formatCount = 1;',
        expected: ['body-changed src/money.ts:formatCount'],
      },
      {
        what: 'a type alias',
        file: 'src/money.ts', from: '\'up\' | \'down\' | \'nearest\'', to: '\'up\' | \'down\' | \'nearest\' | \'even\'',
        expected: ['body-changed src/money.ts:Rounding'],
      },
      {
        what: 'an object type alias',
        file: 'src/money.ts', from: '{ amount: number; currency: Currency }', to: '{ amount: bigint; currency: Currency }',
        expected: ['body-changed src/money.ts:Money'],
      },
      {
        what: 'the value of an enum member',
        file: 'src/money.ts', from: 'Euro = \'EUR\'', to: 'Euro = \'EURO\'',
        expected: ['body-changed src/money.ts:Currency.Euro'],
      },
      {
        what: 'a new enum member',
        file: 'src/money.ts', from: 'Yen = \'JPY\'', to: 'Yen = \'JPY\',\n  Pound = \'GBP\'',
        expected: ['signature-changed src/money.ts:Currency'],
      },
      {
        what: 'the body of a setter',
        file: 'src/cart.ts', from: 'this.label = value.trim();', to: 'this.label = value;',
        expected: ['body-changed src/cart.ts:Cart.note'],
      },
      {
        what: 'the value of a static property',
        file: 'src/cart.ts', from: 'MAX_LINES = 50;', to: 'MAX_LINES = 60;',
        expected: ['body-changed src/cart.ts:Cart.MAX_LINES'],
      },
      {
        what: 'the body of an uncited method of a cited class (not the class\'s shape)',
        file: 'src/cart.ts', from: 'return this.owner + \': \' + formatPrice', to: 'return this.owner + \' - \' + formatPrice',
        expected: [],
      },
      {
        what: 'a function in a dotted namespace',
        file: 'src/catalog.ts', from: 'country === \'NL\'', to: 'country === \'BE\'',
        expected: ['body-changed src/catalog.ts:Shipping.Zones.zoneOf'],
      },
      {
        what: 'a constant in a namespace',
        file: 'src/catalog.ts', from: 'VERSION = 2;', to: 'VERSION = 3;',
        expected: ['body-changed src/catalog.ts:Catalog.VERSION'],
      },
      {
        what: 'the default export expression',
        file: 'src/defaults.ts', from: 'maxLines: 50', to: 'maxLines: 60',
        expected: ['body-changed src/defaults.ts:default'],
      },
      {
        what: 'JSX text of a component',
        file: 'src/view.tsx', from: 'Your cart\'s empty.', to: 'Your cart is empty.',
        expected: ['body-changed src/view.tsx:CartView'],
      },
      {
        what: 'a function in a JS file that is also cited whole',
        file: 'src/legacy.js', from: '.join(\'-\')', to: '.join(\'_\')',
        expected: ['body-changed src/legacy.js:skuFromName', 'body-changed src/legacy.js'],
      },
      {
        what: 'a non-TS file',
        file: 'config/settings.json', from: '"maxLines": 50', to: '"maxLines": 60',
        expected: ['body-changed config/settings.json'],
      },
      {
        what: 'an uncited declaration in a file with cited ones',
        file: 'src/catalog.ts', from: 'const items = new Map<string, Item>();', to: 'const items = new Map<string, Readonly<Item>>();',
        expected: [],
      },
    ];
    for (const { what, file, from, to, expected } of edits) {
      it(what, async () => {
        project.edit(file, from, to);
        await assertIssues(project, expected);
      });
    }
  });

  describe('formatting and comments are never drift', () => {
    for (const [what, reformat] of Object.entries(REFORMATS)) {
      it(what, async () => {
        const changed = project.sources().filter((file) => {
          const text = project.read(file);
          project.write(file, reformat(text));
          return project.read(file) !== text;
        });
        assert.ok(changed.length > 0, 'the rewrite changed something');
        await assertIssues(project, []);
      });
    }

    it('all of them at once, on every source file', async () => {
      for (const file of project.sources()) {
        const text = project.read(file);
        project.write(file, Object.values(REFORMATS).reduce((current, reformat) => reformat(current), text));
        assert.notEqual(project.read(file), text, file);
      }
      await assertIssues(project, []);
    });
  });

  describe('citations that cannot be verified', () => {
    it('a citation without an anchor is unverified and carries the anchor to record; one outside the workspace is never read', async () => {
      project.edit('.wiki/pages/pricing.md', 'Prices show up in carts', 'Yen is `src/money.ts:Currency.Yen`, and `../shared/money.ts` is elsewhere.\n\nPrices show up in carts');
      await assertIssues(project, ['unverified src/money.ts:Currency.Yen', 'outside-workspace ../shared/money.ts']);
      const [unverified] = (await project.issues()).filter((issue) => issue.code === 'unverified');
      const yen = parser.parse('src/money.ts', project.read('src/money.ts')).symbols.get('Currency.Yen')!;
      assert.equal(unverified.data.anchor, symbolAnchor(yen));
    });
  });

  describe('citations through re-exports resolve to the declaration', () => {
    const citations = [
      'src/index.ts:formatPrice', 'src/index.ts:Cart.add', 'src/index.ts:Cat.Search.byName', 'src/index.ts:roundPrice',
      'src/index.ts:money.parsePrice', 'src/index.ts:Item', 'src/api/index.ts:Cart', 'src/api/index.ts:Shipping.Zones.zoneOf',
    ];
    beforeEach(async () => {
      project.write('src/index.ts', [
        "export { formatPrice } from './money.js';", "export * from './cart';", "export { Catalog as Cat } from './catalog';",
        "import { roundPrice } from './money';", 'export { roundPrice };', "export * as money from './money';",
      ].join('\n'));
      project.write('src/api/index.ts', "export * from '../index';\nexport { Shipping } from '../catalog';\n");
      project.write('.wiki/pages/public-api.md', pageText('Public API', `${citations.map((c) => `- \`${c}\``).join('\n')}\n`));
      const stamped = await stampPage(project.wiki, project.engine(), (await project.wiki.readPage('public-api'))!);
      assert.deepEqual(stamped.stamped.sort(), [...citations].sort());
      assert.deepEqual(stamped.unresolved, []);
    });

    it('a stamped citation through a barrel, a rename, an import exported again or a namespace is not drift', async () => {
      await assertIssues(project, []);
    });

    it('a change to the declaration is drift on the citation through the barrel', async () => {
      project.edit('src/money.ts', 'toFixed(2)', 'toFixed(3)');
      await assertIssues(project, ['body-changed src/index.ts:formatPrice', 'body-changed src/money.ts:formatPrice']);
    });

    it('opening the cited symbol goes to its declaration', async () => {
      assert.deepEqual(await project.engine().locate({ path: 'src/api/index.ts', symbol: 'Cart' }), { path: 'src/cart.ts', line: 11, symbol: 'Cart' });
      assert.deepEqual(await project.engine().locate({ path: 'src/index.ts', symbol: 'money.parsePrice' }), { path: 'src/money.ts', line: 24, symbol: 'parsePrice' });
    });

    it('a re-export removed from the barrel is drift, a cycle of barrels is not a hang', async () => {
      project.write('src/index.ts', "export * from './cart';\nexport * from './api/index';\n");
      project.write('src/api/index.ts', "export * from '../index';\n");
      const issues = summary(await project.issues()).filter((issue) => issue.includes('src/index.ts:formatPrice') || issue.includes('src/api/index.ts:Shipping'));
      assert.deepEqual(issues, ['moved-symbol src/api/index.ts:Shipping.Zones.zoneOf → src/catalog.ts', 'moved-symbol src/index.ts:formatPrice → src/money.ts']);
    });
  });

  describe('stamping', () => {
    it('a class stamped before shapes keeps its old meaning until it is reviewed; reviewing records its shape', async () => {
      const page = '.wiki/pages/cart-and-checkout.md';
      const shaped = /"src\/cart\.ts:Cart": "sig:[0-9a-f]{8} shape:[0-9a-f]{8}"/;
      assert.match(project.read(page), shaped);
      project.write(page, project.read(page).replace(shaped, '"src/cart.ts:Cart": "sig:ed7c102a body:a0f3e177"'));
      project.edit('src/cart.ts', 'return this.owner + \': \' + formatPrice', 'return this.owner + \' - \' + formatPrice');
      await assertIssues(project, ['body-changed src/cart.ts:Cart']);

      const cart = (await project.wiki.readPage('cart-and-checkout'))!;
      assert.deepEqual((await stampPage(project.wiki, project.engine(), cart)).stamped, ['src/cart.ts:Cart']);
      assert.match(project.read(page), shaped);
      project.edit('src/cart.ts', 'return this.owner + \' - \' + formatPrice', 'return this.owner + \' / \' + formatPrice');
      await assertIssues(project, []);
    });

    it('records the current fingerprint, which clears the issue, and logs a stamp', async () => {
      project.edit('src/money.ts', 'toFixed(2)', 'toFixed(3)');
      project.edit('src/cart.ts', 'add(item: Item): void', 'add(item: Item, quantity = 1): void');
      await assertIssues(project, ['body-changed src/money.ts:formatPrice', 'signature-changed src/cart.ts:Cart.add', 'signature-changed src/cart.ts:Cart']);
      const logBefore = project.read('.wiki/log.jsonl');

      const engine = project.engine();
      const pricing = (await project.wiki.readPage('pricing'))!;
      const result = await stampPage(project.wiki, engine, pricing);
      assert.deepEqual(result, { slug: 'pricing', stamped: ['src/money.ts:formatPrice'], unresolved: [] });

      await assertIssues(project, ['signature-changed src/cart.ts:Cart.add', 'signature-changed src/cart.ts:Cart']);
      const added = project.read('.wiki/log.jsonl').slice(logBefore.length);
      assert.deepEqual(JSON.parse(added), { ts: '2026-11-22T10:00:00.000Z', op: 'stamp', pages: ['pricing'], citations: ['src/money.ts:formatPrice'] });

      // Stamping again changes nothing and logs nothing.
      assert.deepEqual((await stampPage(project.wiki, engine, (await project.wiki.readPage('pricing'))!)).stamped, []);
      assert.equal(project.read('.wiki/log.jsonl'), logBefore + added);
    });

    it('a review keeps the commit of every anchor whose code is as it was verified, and records the new commit only where the code changed', async () => {
      const [first, second] = ['1111111111111111111111111111111111111111', '2222222222222222222222222222222222222222'];
      const engine = () => project.engine();
      const page = '.wiki/pages/pricing.md';
      await stampPage(project.wiki, engine(), (await project.wiki.readPage('pricing'))!, { verifiedAt: first });
      const anchored = project.read(page);
      assert.match(anchored, /"src\/money\.ts:formatPrice": "sig:[0-9a-f]{8} body:[0-9a-f]{8} at:111111111111"/);
      assert.match(anchored, /"src\/money\.ts:parsePrice": "sig:[0-9a-f]{8} body:[0-9a-f]{8} at:111111111111"/);

      project.edit('src/money.ts', 'toFixed(2)', 'toFixed(3)');
      const review = await stampPage(project.wiki, engine(), (await project.wiki.readPage('pricing'))!, { verifiedAt: second });
      assert.deepEqual(review.stamped, ['src/money.ts:formatPrice'], 'only the citation whose code changed');
      const reviewed = project.read(page);
      assert.match(reviewed, /"src\/money\.ts:formatPrice": "sig:[0-9a-f]{8} body:[0-9a-f]{8} at:222222222222"/);
      assert.match(reviewed, /"src\/money\.ts:parsePrice": "sig:[0-9a-f]{8} body:[0-9a-f]{8} at:111111111111"/, 'unchanged code keeps the commit it was verified at');
      // A review without a commit (no git) keeps every commit recorded.
      assert.deepEqual((await stampPage(project.wiki, engine(), (await project.wiki.readPage('pricing'))!)).stamped, []);
      assert.equal(project.read(page), reviewed);
      await assertIssues(project, []);
    });

    it('a stamp of the whole page drops the anchors of citations no longer on it, and logs them; a stamp of some citations keeps them', async () => {
      const page = '.wiki/pages/pricing.md';
      project.edit(page, '- `src/money.ts:roundPrice` rounds', '- roundPrice rounds');
      const engine = project.engine();
      const some = await stampPage(project.wiki, engine, (await project.wiki.readPage('pricing'))!, { citations: ['src/money.ts:parsePrice'] });
      assert.equal(some.dropped, undefined);
      assert.match(project.read(page), /"src\/money\.ts:roundPrice"/);

      const logBefore = project.read('.wiki/log.jsonl');
      const whole = await stampPage(project.wiki, engine, (await project.wiki.readPage('pricing'))!, { onlyMissing: true });
      assert.deepEqual(whole, { slug: 'pricing', stamped: [], unresolved: [], dropped: ['src/money.ts:roundPrice'] });
      assert.doesNotMatch(project.read(page), /"src\/money\.ts:roundPrice"/);
      assert.match(project.read(page), /"src\/money\.ts:Rounding": "sig:5b4ae398 body:ed4b419f"/, 'the other anchors are kept as they were');
      assert.deepEqual(JSON.parse(project.read('.wiki/log.jsonl').slice(logBefore.length)), { ts: '2026-11-22T10:00:00.000Z', op: 'stamp', pages: ['pricing'], citations: [], dropped: ['src/money.ts:roundPrice'] });
      await assertIssues(project, []);
    });

    it('stamps only the citations asked for, and reports those that do not resolve', async () => {
      project.edit('src/cart.ts', 'add(item: Item): void', 'add(item: Item, quantity = 1): void');
      project.remove('src/legacy.js');
      const engine = project.engine();
      const cart = (await project.wiki.readPage('cart-and-checkout'))!;
      assert.deepEqual(await stampPage(project.wiki, engine, cart, { citations: ['src/cart.ts:Cart.add'] }), { slug: 'cart-and-checkout', stamped: ['src/cart.ts:Cart.add'], unresolved: [] });
      await assertIssues(project, ['signature-changed src/cart.ts:Cart', 'missing-file src/legacy.js', 'missing-file src/legacy.js:skuFromName']);
      const catalogue = (await project.wiki.readPage('catalogue'))!;
      assert.deepEqual(await stampPage(project.wiki, engine, catalogue), { slug: 'catalogue', stamped: [], unresolved: ['src/legacy.js:skuFromName', 'src/legacy.js'] });
    });
  });

  describe('caching', () => {
    it('an engine keeps a file as it first read it until told the file changed', async () => {
      const engine = project.engine();
      assert.deepEqual(await project.issues(engine), []);
      project.edit('src/money.ts', 'toFixed(2)', 'toFixed(3)');
      assert.deepEqual(await project.issues(engine), [], 'still the cached state');
      engine.invalidate('src/cart.ts');
      assert.deepEqual(await project.issues(engine), [], 'another file was invalidated');
      engine.invalidate('src/money.ts');
      assert.deepEqual(summary(await project.issues(engine)), ['body-changed src/money.ts:formatPrice']);
    });

    it('a symbol moved to a new file is found once the search lists files again', async () => {
      const search = new WorkspaceSearch(project.root, project.files);
      const engine = project.engine(search);
      assert.deepEqual(await project.issues(engine), []);
      await search.filesContaining('roundPrice'); // lists the files now
      project.write('src/rounding.ts', project.cut('src/money.ts', 'export const roundPrice'));
      engine.invalidate('src/money.ts');
      assert.deepEqual(summary(await project.issues(engine)), ['missing-symbol src/money.ts:roundPrice'], 'the file list predates src/rounding.ts');
      search.reset();
      assert.deepEqual(summary(await project.issues(engine)), ['moved-symbol src/money.ts:roundPrice → src/rounding.ts']);
    });
  });
});
