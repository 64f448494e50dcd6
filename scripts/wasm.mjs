// `npm run build:wasm`: assembles the project's own WebAssembly (src/**/*.wat) with wabt, into a
// TypeScript module beside each source that holds its bytes (base64): the core loads it with no
// file access, in the extension, the CLI and the tests alike.
// Usage: node scripts/wasm.mjs [--check]
//   --check  write nothing; exit 1, naming the modules that differ, when one is out of date.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** The TypeScript module for a .wat file: its bytes, and the constant's name (countWords.wat: COUNT_WORDS_WASM). */
function moduleText(wabt, source) {
  const name = path.basename(source, '.wat');
  const constant = `${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}_WASM`;
  const parsed = wabt.parseWat(source, fs.readFileSync(path.join(ROOT, source), 'utf8'), { bulk_memory: true });
  try {
    parsed.validate();
    const bytes = Buffer.from(parsed.toBinary({}).buffer).toString('base64');
    return [
      `// Generated from ${name}.wat by scripts/wasm.mjs (npm run build:wasm): do not edit.`,
      `export const ${constant} = '${bytes}';`,
      '',
    ].join('\n');
  } finally {
    parsed.destroy();
  }
}

const wabt = await require('wabt')();
const check = process.argv.includes('--check');
const stale = [];
// Every .wat under src/, as a path from the root with forward slashes.
const sources = fs.readdirSync(path.join(ROOT, 'src'), { recursive: true }).filter((file) => file.endsWith('.wat')).map((file) => `src/${file.split(path.sep).join('/')}`);
for (const source of sources.sort()) {
  const target = path.join(ROOT, source.replace(/\.wat$/, 'Wasm.ts'));
  const text = moduleText(wabt, source);
  if (check) {
    if (!fs.existsSync(target) || fs.readFileSync(target, 'utf8') !== text) stale.push(path.relative(ROOT, target));
  } else {
    fs.writeFileSync(target, text);
  }
}
if (stale.length) {
  console.error(`Out of date with its .wat source (run: npm run build:wasm): ${stale.join(', ')}`);
  process.exit(1);
}
