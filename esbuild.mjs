// Builds the extension host bundle, the webview bundle and the CLI into dist/.
import * as esbuild from 'esbuild';
import { chmodSync, cpSync, mkdirSync, rmSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'info',
  legalComments: 'none',
  // jsonc-parser's default (UMD) build requires its parts at run time, which a bundle cannot follow.
  alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
};

/** Imports of these modules (the end of their path, without extension) become requires of the bundles built beside this one. */
function besideBundles(map) {
  return {
    name: 'beside-bundles',
    setup(build) {
      const names = Object.keys(map).map((module) => module.replace(/[/.]/g, (c) => `\\${c}`)).join('|');
      build.onResolve({ filter: new RegExp(`(^|/)(${names})$`) }, (args) => {
        const key = Object.keys(map).find((module) => args.path === module || args.path.endsWith(`/${module}`));
        return key ? { path: map[key], external: true } : undefined;
      });
    },
  };
}

/**
 * The TypeScript compiler is most of a bundle's size, so it ships once: imports of `typescript`, and
 * ts-morph's own copy of it, become requires of dist/typescript.js beside the bundle. ts-morph then
 * runs on the TypeScript the project pins, the one the TS/JS parser uses.
 */
function sharedTypeScript() {
  return {
    name: 'shared-typescript',
    setup(build) {
      build.onResolve({ filter: /^typescript$/ }, () => ({ path: './typescript.js', external: true }));
      build.onResolve({ filter: /^\.\/typescript$/ }, (args) => (/[\\/]@ts-morph[\\/]common[\\/]/.test(args.importer) ? { path: './typescript.js', external: true } : undefined));
    },
  };
}

const builds = [
  {
    // The one TypeScript compiler, required by tsParser.js and semantic.js (see sharedTypeScript).
    ...common,
    entryPoints: { typescript: 'node_modules/typescript/lib/typescript.js' },
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outdir: 'dist',
  },
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    outdir: 'dist',
    metafile: true,
  },
  {
    // Drift analysis (TypeScript included) runs in a worker thread, never at activation.
    ...common,
    // parseWorker: tree-sitter parses of a full scan, on one thread per core (see ParsePool).
    entryPoints: { driftWorker: 'src/adapters/drift/driftWorker.ts', parseWorker: 'src/adapters/treesitter/parseWorker.ts' },
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outdir: 'dist',
  },
  {
    // Heavy adapters (sql.js, the Anthropic SDK, simple-git, the TS/JS parser; ts-morph for semantic drift, required by the worker and the CLI), loaded on first use; both TypeScript users require dist/typescript.js.
    ...common,
    // tsParser: the TS/JS symbol parser with the TypeScript compiler, shared by the worker and the CLI, required on the first TS/JS file.
    // dataFileKeys: the YAML and TOML readers for key citations (see lazyDataFileKeys).
    entryPoints: { dataFileKeys: 'src/core/drift/dataFileKeys.ts', store: 'src/adapters/store/workspaceStore.ts', llm: 'src/adapters/llm/providers.ts', tokenizer: 'src/adapters/llm/o200k.ts', git: 'src/adapters/git/gitWiki.ts', semantic: 'src/adapters/typescript/semanticTypes.ts', tsParser: 'src/adapters/typescript/tsSymbolParser.ts' },
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outdir: 'dist',
    // OpenAI's tokenizer (2 MB of ranks) is its own bundle, required by llm.js on the first count.
    plugins: [sharedTypeScript(), besideBundles({ './o200k': './tokenizer.js' })],
  },
  {
    ...common,
    entryPoints: { cli: 'src/cli/main.ts' },
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outdir: 'dist',
    // The model SDKs, simple-git's wiki adapter, the conversation store (sql.js) and the MCP server (its SDK, zod, ajv) are bundles beside it, required by the commands that need them, so every run starts fast.
    plugins: [besideBundles({ 'adapters/llm/providers': './llm.js', 'adapters/git/gitWiki': './git.js', 'adapters/store/workspaceStore': './store.js', serveMcp: './mcp.js' })],
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // `repo-wiki mcp`'s server, required by cli.js (src/cli/commands/mcp.ts) for that command only.
    ...common,
    entryPoints: { mcp: 'src/cli/serveMcp.ts' },
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outdir: 'dist',
  },
  {
    ...common,
    entryPoints: { webview: 'src/webview/main.ts', graph: 'src/webview/graph/main.ts' },
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    outdir: 'dist',
  },
];

// The YAML and TOML readers (the yaml and smol-toml packages) are dist/dataFileKeys.js, required on
// the first key citation of such a file: not part of the extension's activation bundle.
function lazyDataFileKeys() {
  return {
    name: 'lazy-data-file-keys',
    setup(build) {
      build.onResolve({ filter: /^\.\/dataFileKeys$/ }, () => ({ path: './dataFileKeys.js', external: true }));
    },
  };
}
for (const options of builds) {
  if (options.format !== 'cjs') continue;
  options.plugins = [...(options.plugins ?? []), lazyDataFileKeys()];
}

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist', { recursive: true });
// Runtime assets: the SQLite WebAssembly binary for the conversation store, and codicons for the webview.
cpSync('node_modules/sql.js/dist/sql-wasm.wasm', 'dist/sql-wasm.wasm');
mkdirSync('dist/codicons', { recursive: true });
for (const file of ['codicon.css', 'codicon.ttf']) cpSync(`node_modules/@vscode/codicons/dist/${file}`, `dist/codicons/${file}`);
// tree-sitter and the grammars of the languages drift supports besides TS/JS (only these: the .vsix stays small).
mkdirSync('dist/grammars', { recursive: true });
for (const grammar of ['tree-sitter', 'tree-sitter-python', 'tree-sitter-go', 'tree-sitter-rust', 'tree-sitter-java', 'tree-sitter-c-sharp', 'tree-sitter-ruby', 'tree-sitter-php', 'tree-sitter-cpp']) {
  cpSync(`node_modules/@vscode/tree-sitter-wasm/wasm/${grammar}.wasm`, `dist/grammars/${grammar}.wasm`);
}

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else {
  const results = await Promise.all(builds.map((options) => esbuild.build(options)));
  chmodSync('dist/cli.js', 0o755);
  const inputs = Object.keys(results.find((result) => result.metafile).metafile.inputs); // the activation bundle's
  const heavy = inputs.filter((input) => /node_modules\/(typescript|ts-morph|sql\.js|@anthropic-ai|simple-git|@vscode\/tree-sitter-wasm|yaml|smol-toml)\//.test(input));
  if (heavy.length) throw new Error(`Heavy modules reached the activation bundle: ${heavy.slice(0, 3).join(', ')}`);
}
