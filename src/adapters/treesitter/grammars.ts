// The grammars tree-sitter parses with, and the WebAssembly behind them: each loads once per
// process, on first use, and is shared by every parser (see TreeSitterParser).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Language, Query } from '@vscode/tree-sitter-wasm';
import type { LanguageRules } from './languages';

/** A loaded grammar, its queries, and how to read its outline. */
export interface Grammar {
  language: Language;
  /** Every declaration in a subtree, in document order (for the parts of a file that are not walked). */
  declarations: Query;
  /** Every comment of a file (the grammars name comments differently). */
  comments: Query;
  /** The comments' node types. */
  commentTypes: ReadonlySet<string>;
  /** Every parenthesized node of a file, for the language's redundant parentheses (see LanguageRules.redundantParens). */
  parens?: Query;
  /** Node types whose children are walked from JavaScript (statement blocks, preprocessor groups, ...). */
  walk: ReadonlySet<string>;
  /** Node types that never hold a declaration: skipped. */
  opaque: ReadonlySet<string>;
}

export type Runtime = typeof import('@vscode/tree-sitter-wasm');

// WebAssembly grammars are immutable: one load per process, shared by every parser.
let runtime: Promise<Runtime> | undefined;
const grammars = new Map<string, Promise<Grammar>>();
// The WebAssembly this process compiled, or a parse thread did and sent here, by file name. V8
// shares the compiled code of the same bytes among a process's threads while one of them holds it:
// held here, what the threads compile and optimise outlives them, and a parse on this thread
// afterwards (a save) runs at once at their speed, where a fresh compile cost the first parses of
// each language tens of milliseconds.
const compiled = new Map<string, WebAssembly.Module>();

/** A language's grammar, loaded on its first use in this process. */
export function grammarFor(grammarDir: string, rules: LanguageRules): Promise<Grammar> {
  let grammar = grammars.get(rules.grammar);
  if (!grammar) {
    grammar = loadGrammar(grammarDir, rules);
    grammars.set(rules.grammar, grammar);
    grammar.catch(() => grammars.delete(rules.grammar)); // a failed load is tried again next time
  }
  return grammar;
}

/** The tree-sitter runtime, loaded with the first grammar (grammarFor). */
export function loadedRuntime(): Promise<Runtime> {
  return runtime!;
}

/** The WebAssembly modules this process holds (see `compiled`), by file name. */
export function compiledWebAssembly(): ReadonlyMap<string, WebAssembly.Module> {
  return compiled;
}

/** Holds WebAssembly a parse thread compiled and sent here (see `compiled`). */
export function holdWebAssembly(file: string, module: WebAssembly.Module): void {
  compiled.set(file, module);
}

/** Compiles a WebAssembly file, and holds it: the runtime's and the grammar's own loads of the same bytes then share its code. */
async function compile(grammarDir: string, file: string): Promise<Uint8Array> {
  const bytes = new Uint8Array(fs.readFileSync(path.join(grammarDir, file)));
  if (!compiled.has(file)) compiled.set(file, await WebAssembly.compile(bytes));
  return bytes;
}

async function loadGrammar(grammarDir: string, rules: LanguageRules): Promise<Grammar> {
  runtime ??= (async () => {
    const loaded = await import('@vscode/tree-sitter-wasm');
    await compile(grammarDir, RUNTIME);
    await loaded.Parser.init({ locateFile: (file: string) => path.join(grammarDir, file) });
    return loaded;
  })();
  const { Language, Query } = await runtime;
  const language = await Language.load(await compile(grammarDir, rules.grammar));
  const declarations = Object.keys(rules.declarations).filter((type) => language.idForNodeType(type, true) !== null).map((type) => `(${type}) @declaration`);
  const comments = new Set<string>((rules.commentLike ?? []).filter((type) => language.idForNodeType(type, true) !== null));
  for (let id = 0; id < language.nodeTypeCount; id++) {
    const type = language.nodeTypeForId(id);
    if (type && /comment/.test(type) && language.nodeTypeIsNamed(id) && language.nodeTypeIsVisible(id)) comments.add(type);
  }
  // Compiled on first use: only a hash of a whole file asks for every comment and parenthesis (an outline never does), and compiling a query costs milliseconds per grammar and thread.
  let commentQuery: Query | undefined;
  let parenQuery: Query | undefined;
  const parens = rules.redundantParens;
  return {
    language,
    declarations: new Query(language, declarations.join('\n')),
    get comments() {
      return (commentQuery ??= new Query(language, [...comments].map((type) => `(${type}) @comment`).join('\n')));
    },
    commentTypes: comments,
    get parens() {
      return parens && (parenQuery ??= new Query(language, `(${parens.type}) @paren`));
    },
    walk: new Set([...WALKED, ...(rules.walk ?? [])].filter((type) => !rules.opaque?.includes(type))),
    opaque: new Set(rules.opaque),
  };
}

/**
 * Statement lists and groups that hold declarations in most grammars: walked, not queried. So is
 * an error the parser recovered from: a C header whose macros it cannot read is often one ERROR
 * node around the whole file, and querying that costs more than the parse.
 */
const WALKED = ['module', 'program', 'source_file', 'translation_unit', 'compilation_unit', 'block', 'declaration_list', 'body_statement', 'ERROR'];

/** The tree-sitter runtime's own WebAssembly, beside the grammars. */
const RUNTIME = 'tree-sitter.wasm';

/** dist/grammars next to the bundle; else the package's own folder (tests and the CLI run from source). */
export function defaultGrammarDir(): string {
  const bundled = path.join(__dirname, 'grammars');
  if (fs.existsSync(path.join(bundled, RUNTIME))) return bundled;
  return path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');
}
