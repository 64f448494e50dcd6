// The two source trees the drift benchmark runs on: a pinned npm package's shipped TypeScript
// sources, and a seeded generated project of ~5,000 files and ~1M lines that import each other.
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

const require = createRequire(import.meta.url);

// Compiler options for ts-morph's whole-program load: `.js` specifiers resolve to `.ts` (bundler resolution).
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', strict: true, noEmit: true,
    skipLibCheck: true, lib: ['ES2022'], types: [],
  },
  include: ['src'],
};

/** Every `.ts` file under `dir`, workspace-relative with forward slashes, sorted. */
export function listTs(root, dir = 'src') {
  const out = [];
  const walk = (rel) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.ts')) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

function countLines(root, files) {
  let lines = 0;
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lines++;
  }
  return lines;
}

/** Copies `effect`'s shipped sources (node_modules/effect/src) into `root/src`. */
export function makeRealCorpus(root) {
  const pkgJson = require.resolve('effect/package.json');
  const { name, version } = JSON.parse(readFileSync(pkgJson, 'utf8'));
  mkdirSync(root, { recursive: true });
  cpSync(join(dirname(pkgJson), 'src'), join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  const files = listTs(root);
  return { label: `${name}@${version} src/`, root, files, lines: countLines(root, files) };
}

/** mulberry32: a small seeded PRNG, so the generated corpus is identical on every run. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (list) => list[next.int(list.length)];
  return next;
}

const NOUNS = ['Order', 'Invoice', 'Customer', 'Account', 'Ledger', 'Payment', 'Shipment', 'Cart', 'Product', 'Catalog',
  'Session', 'Token', 'Route', 'Request', 'Cache', 'Queue', 'Job', 'Event', 'Metric', 'Report', 'Schedule', 'Policy',
  'Rule', 'Tenant', 'User', 'Role', 'Permission', 'Audit', 'Notification', 'Template', 'Document', 'Asset', 'Upload',
  'Search', 'Query', 'Filter', 'Webhook', 'Subscription', 'Discount', 'Warehouse'];
const SUFFIXES = ['Service', 'Repository', 'Controller', 'Handler', 'Manager', 'Store', 'Builder', 'Factory', 'Validator',
  'Mapper', 'Client', 'Adapter', 'Registry', 'Processor', 'Resolver'];
const FIELDS = ['name', 'owner', 'region', 'currency', 'label', 'source', 'channel', 'reference', 'category', 'tier',
  'priority', 'createdBy', 'updatedBy', 'locale', 'note', 'parentId', 'externalId', 'version'];
const VERBS = ['validate', 'normalise', 'summarise', 'compare', 'serialise', 'merge', 'partition', 'score', 'describe', 'index'];
const STATES = ['draft', 'pending', 'active', 'suspended', 'archived', 'failed', 'complete'];

const lower = (s) => s[0].toLowerCase() + s.slice(1);
const kebab = (s) => s.replace(/[A-Z]/g, (c, i) => (i ? '-' : '') + c.toLowerCase());

/**
 * Generates `count` files of about `avgLines` lines each under `root/src/mNN/`: per file an
 * interface, a status union, sometimes an enum, options, one or two classes with methods,
 * functions and constants, importing records and classes from 3–5 earlier files and using them.
 */
export function makeGeneratedCorpus(root, { count = 5000, avgLines = 200, seed = 20261122 } = {}) {
  const random = rng(seed);
  const meta = [];
  for (let i = 0; i < count; i++) {
    const noun = NOUNS[i % NOUNS.length];
    const suffix = SUFFIXES[(i * 7) % SUFFIXES.length];
    const dir = `m${String(Math.floor(i / 100)).padStart(2, '0')}`;
    const base = `${kebab(noun)}-${kebab(suffix)}-${i}`;
    const states = [...STATES].sort(() => random() - 0.5).slice(0, 3 + random.int(4));
    meta.push({ i, noun, suffix, dir, states, file: `src/${dir}/${base}.ts`, spec: `${dir}/${base}`, rec: `${noun}${i}Record`, cls: `${noun}${suffix}${i}`, status: `${noun}${i}Status` });
  }
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  let lines = 0;
  for (const m of meta) {
    const text = generateFile(m, meta, random, Math.round(avgLines * (0.55 + random() * 0.9)));
    mkdirSync(join(root, 'src', m.dir), { recursive: true });
    writeFileSync(join(root, m.file), text);
    lines += text.split('\n').length - 1;
  }
  return { label: `generated (seed ${seed})`, root, files: meta.map((m) => m.file), lines };
}

function generateFile(m, meta, random, targetLines) {
  const out = [];
  const emit = (...rows) => out.push(...rows);
  const fields = [...FIELDS].sort(() => random() - 0.5).slice(0, 4 + random.int(6));
  // Imports point at earlier files only (a layered project): the import graph is acyclic and the
  // compiler's depth-first walk over it stays shallow, as in real code bases.
  const imports = [];
  const seen = new Set();
  const wanted = Math.min(m.i, 3 + random.int(3));
  while (imports.length < wanted) {
    const j = random.int(m.i);
    if (!seen.has(j)) { seen.add(j); imports.push(meta[j]); }
  }
  const deps = imports.length ? imports : [m];
  const spec = (d) => {
    const rel = relative(`src/${m.dir}`, `src/${d.spec}`).split('\\').join('/');
    return rel.startsWith('.') ? rel : `./${rel}`;
  };

  emit(`// ${m.cls}: ${lower(m.noun)} records, their ${kebab(m.suffix)} and helpers. Generated for the drift benchmark.`);
  for (const d of imports) emit(`import { ${d.cls}, type ${d.rec}, type ${d.status} } from '${spec(d)}';`);
  emit('');
  emit(`/** One ${lower(m.noun)} as stored. */`, `export interface ${m.rec} {`, '  id: string;');
  for (const f of fields) emit(`  ${f}: ${f === 'priority' || f === 'version' ? 'number' : 'string'};`);
  emit(`  status: ${m.status};`, `  linked?: ${deps[0].rec};`, '  updatedAt: number;', '}', '');
  const { states } = m;
  emit(`export type ${m.status} = ${states.map((s) => `'${s}'`).join(' | ')};`, '');
  if (random() < 0.35) {
    emit(`export enum ${m.noun}${m.i}Kind {`);
    for (const s of states) emit(`  ${s[0].toUpperCase()}${s.slice(1)} = '${s}',`);
    emit('}', '');
  }
  emit(`export interface ${m.cls}Options {`, '  limit?: number;', '  clock?: () => number;', `  onChange?(record: ${m.rec}): void;`, '}', '');
  emit(`export const DEFAULT_${m.noun.toUpperCase()}_${m.i}_LIMIT = ${100 + random.int(900)};`, '');

  const classes = random() < 0.4 ? 2 : 1;
  const perClass = Math.max(1, Math.floor((targetLines - out.length - 30) / (classes * 17)));
  for (let c = 0; c < classes; c++) {
    const cls = c === 0 ? m.cls : `${m.cls}Cache`;
    const peer = deps[(c + 1) % deps.length];
    emit(`/** Keeps ${lower(m.noun)} records in memory${c ? ' for fast lookups' : ''}. */`, `export class ${cls} {`);
    emit(`  private readonly items = new Map<string, ${m.rec}>();`, `  private peer?: ${peer.cls};`, '');
    emit(`  constructor(private readonly options: ${m.cls}Options = {}) {}`, '');
    emit('  get size(): number {', '    return this.items.size;', '  }', '');
    emit(`  link(peer: ${peer.cls}): void {`, '    this.peer = peer;', '  }', '');
    for (let k = 0; k < perClass; k++) emitMethod(emit, m, deps, fields, random, k);
    emit('}', '');
  }
  let f = 0;
  while (out.length < targetLines) emitFunction(emit, m, deps, fields, random, f++);
  return `${out.join('\n')}\n`;
}

function emitMethod(emit, m, deps, fields, random, k) {
  const field = random.pick(fields);
  const dep = random.pick(deps);
  const name = `${random.pick(['find', 'count', 'update', 'remove', 'collect', 'refresh', 'check'])}By${field[0].toUpperCase()}${field.slice(1)}${k}`;
  switch (random.int(4)) {
    case 0:
      emit(`  ${name}(value: ${m.rec}['${field}']): ${m.rec}[] {`, `    const out: ${m.rec}[] = [];`, '    for (const item of this.items.values()) {',
        `      if (item.${field} === value && item.status !== '${random.pick(m.states)}') {`, '        out.push(item);', '      }', '    }',
        `    const limit = this.options.limit ?? ${random.int(500) + 10};`, '    if (out.length > limit) {', '      out.length = limit;', '    }', '    return out;', '  }', '');
      break;
    case 1:
      emit(`  async ${name}(id: string, linked?: ${dep.rec}): Promise<${m.rec} | undefined> {`, '    const item = this.items.get(id);',
        '    if (!item) {', '      return undefined;', '    }', `    const next: ${m.rec} = { ...item, updatedAt: (this.options.clock ?? Date.now)() };`,
        '    if (linked) {', `      next.${field} = ${field === 'priority' || field === 'version' ? 'linked.updatedAt' : 'linked.id'};`, '    }', '    this.items.set(id, next);',
        '    this.options.onChange?.(next);', `    await Promise.resolve(this.peer?.size ?? ${random.int(100)});`, '    return next;', '  }', '');
      break;
    case 2:
      emit(`  ${name}(predicate: (item: ${m.rec}) => boolean = () => true): Map<string, number> {`, '    const counts = new Map<string, number>();',
        '    for (const item of this.items.values()) {', '      if (!predicate(item)) {', '        continue;', '      }',
        `      const key = String(item.${field});`, '      counts.set(key, (counts.get(key) ?? 0) + 1);', '    }',
        `    if (counts.size > ${random.int(50) + 5}) {`, `      counts.delete('${random.pick(STATES)}');`, '    }', '    return counts;', '  }', '');
      break;
    default:
      emit(`  ${name}(records: readonly ${m.rec}[], status: ${dep.status}): number {`, '    let changed = 0;', '    for (const record of records) {',
        `      const existing = this.items.get(record.id);`, '      if (existing && existing.updatedAt >= record.updatedAt) {', '        continue;', '      }',
        '      this.items.set(record.id, record);', '      changed++;', '    }', `    if (status === '${random.pick(dep.states)}' && changed > ${random.int(20)}) {`,
        `      changed += new ${dep.cls}().size;`, '    }', '    return changed;', '  }', '');
  }
}

function emitFunction(emit, m, deps, fields, random, f) {
  const verb = random.pick(VERBS);
  const field = random.pick(fields);
  if (random() < 0.5) {
    emit(`/** ${verb[0].toUpperCase()}${verb.slice(1)}s a ${lower(m.noun)} by ${field}. */`, `export function ${verb}${m.noun}${m.i}_${f}(record: ${m.rec}, other?: ${m.rec}): string {`,
      `  const parts = [record.id, String(record.${field})];`, '  if (other && other.updatedAt > record.updatedAt) {', `    parts.push(String(other.${field}));`, '  }',
      `  return parts.join('${random.pick([':', '/', '-', '|'])}');`, '}', '');
  } else {
    const dep = random.pick(deps);
    emit(`export const ${verb}${m.noun}${m.i}Linked_${f} = (record: ${m.rec}, peer: ${dep.rec}): boolean => {`, '  if (!record.linked) {', '    return false;', '  }',
      `  return record.linked.id === peer.id && record.${field} !== undefined;`, '};', '');
  }
}
