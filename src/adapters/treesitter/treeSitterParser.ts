// Symbol index of one file in a language other than TS/JS, with tree-sitter. Names follow the
// language's nesting: `Class.method`, Go methods by receiver (`UUID.String`), Rust impl methods by
// type (`Type.method`), nested classes and modules (`Outer.Inner.fn`); nothing inside a function
// counts. Fingerprints mean what they mean for TypeScript: FNV-1a over the text with comments,
// whitespace, trailing commas and line continuations left out, so formatting never counts (nor,
// unlike TypeScript, a change of whitespace inside a string; in Python, nor the choice of quotes);
// decorators and attributes are part of the signature; a docstring is part of the body. Overloads
// hash as a set: reordering them is no change. The declarations are walked from the root, function bodies never entered; comments are
// found only where a cited symbol is hashed; hashes are taken per symbol on first read. A batch of
// files can parse on other threads, which send back only what was wanted (see threadAnswers.ts).
//
// The parts: grammars.ts loads each grammar once per process; outlineWalk.ts walks a tree for its
// declarations (wantedWords.ts: which of them a partial outline keeps); packedOutline.ts keeps the
// outline as plain data; lazySymbols.ts makes symbols from it when they are read; tokenHash.ts
// hashes their text.
import type { Language, Tree } from '@vscode/tree-sitter-wasm';
import type { DeclaredName, FileSymbols, SymbolParser, WantedSymbols } from '../../core/drift/symbols';
import { signatureAtOffset } from '../../core/map/fileFacts';
import { defaultGrammarDir, grammarFor, holdWebAssembly, loadedRuntime, type Grammar, type Runtime } from './grammars';
import { rulesOf, type LanguageRules } from './languages';
import { symbolsOf } from './lazySymbols';
import { outlineFor, topLevelOutline } from './outlineWalk';
import { packOutline } from './packedOutline';
import { ParsePool, type ReadBytes } from './parsePool';
import { packAnswers, packDeclaredNames, unpackAnswers, unpackDeclaredNames } from './threadAnswers';
import { redundantParenPairs, tokenSyntax, TokenText } from './tokenHash';
import { WantedWords } from './wantedWords';

/** Whether drift reads symbols of this file with tree-sitter. */
export function isTreeSitterFile(file: string): boolean {
  return rulesOf(file) !== undefined;
}

/** As ParseThreads, with a read that may find the answers known already: then there is nothing to parse. */
export interface TreeSitterThreads {
  parse(fileName: string, read: ReadBytes, wanted?: WantedSymbols): Promise<FileSymbols | undefined>;
  release(): Promise<void>;
}

// One pool of parse threads per process; null when its worker script was not built.
let pool: ParsePool | null | undefined;

/** Parses the languages of `LANGUAGES`; each grammar loads on first use (`prepare`), in whatever process runs drift. */
export class TreeSitterParser implements SymbolParser {
  private readonly loaded = new Map<string, Grammar>();
  private parser?: InstanceType<Runtime['Parser']>;

  constructor(private readonly grammarDir = defaultGrammarDir()) {}

  /** Loads the grammar a file needs; parse() needs it loaded. */
  async prepare(file: string): Promise<void> {
    const rules = rulesOf(file);
    if (!rules || this.loaded.has(rules.grammar)) return;
    this.loaded.set(rules.grammar, await grammarFor(this.grammarDir, rules));
    this.parser ??= new (await loadedRuntime()).Parser();
  }

  /** The loaded grammar of a file's language (for measuring a bare parse). */
  languageOf(fileName: string): Language | undefined {
    const rules = rulesOf(fileName);
    return rules && this.loaded.get(rules.grammar)?.language;
  }

  /**
   * The symbols of a file: with `wanted`, only the declarations that may be wanted (partial; see
   * WantedWords). Comments are looked for only where the wanted symbols will be hashed, while the
   * tree is here; a hash anywhere else that may hold one parses the text again.
   */
  parse(fileName: string, text: string, wanted?: WantedSymbols): FileSymbols {
    const { rules, grammar } = this.grammarOf(fileName);
    return this.withTree(fileName, text, grammar, (tree) => {
      const tokens = new TokenText(text, tokenSyntax(rules), grammar.commentTypes, () => this.allSkips(fileName, text, grammar, rules));
      const { index, partial } = outlineFor(tree.rootNode, grammar, rules, wanted && WantedWords.of(text, wanted));
      if (wanted?.wholeFile) tokens.addSkips(skipsOf(tree, grammar, rules), 0, text.length);
      for (const name of wanted?.names ?? []) index.prepare(name, tokens);
      return symbolsOf(packOutline(index.pieces), tokens, partial, rules.reExports?.(tree.rootNode));
    });
  }

  /**
   * Threads for a batch of files, with the grammars those files need loading at once; undefined
   * when none of the files is parsed here, or the pool was not built. The threads send back only
   * what was wanted of each file (partial symbols), so this thread keeps neither text nor grammar.
   * A file is read when a thread is ready for it; its parse is undefined when `read` found nothing to parse.
   */
  parseThreads(fileNames: readonly string[]): TreeSitterThreads | undefined {
    const files = fileNames.filter((file) => rulesOf(file));
    if (!files.length) return undefined;
    pool ??= ParsePool.beside(__dirname, (file) => rulesOf(file)!.grammar, holdWebAssembly) ?? null;
    if (!pool) return undefined;
    const threads = pool;
    threads.start(files);
    return {
      parse: async (fileName, read, wanted) => {
        const answers = await threads.answers(fileName, read, wanted);
        if (answers === undefined) return undefined;
        return wanted?.outline ? unpackDeclaredNames(answers) : unpackAnswers(fileName, answers, wanted);
      },
      release: () => threads.release(),
    };
  }

  /** What `wanted` reads of a file, hashed here, for a parse thread to send back (see threadAnswers.ts). */
  answersOf(fileName: string, text: string, wanted?: WantedSymbols): string {
    return wanted?.outline ? packDeclaredNames(this.outlineOf(fileName, text)) : packAnswers(this.parse(fileName, text, wanted), wanted);
  }

  /** Every top-level declaration's name, kind, first line number and that line, straight from the walk: nothing is hashed, and no symbol made. */
  private outlineOf(fileName: string, text: string): DeclaredName[] {
    const { rules, grammar } = this.grammarOf(fileName);
    return this.withTree(fileName, text, grammar, (tree) => {
      const declared: DeclaredName[] = [];
      for (const [name, { kind, pieces }] of topLevelOutline(tree.rootNode, grammar, rules).pieces) {
        const first = pieces.reduce((a, b) => (b.startLine < a.startLine ? b : a));
        declared.push({ name, kind, startLine: first.startLine, signature: signatureAtOffset(text, first.sigStart) });
      }
      return declared;
    });
  }

  private grammarOf(fileName: string): { rules: LanguageRules; grammar: Grammar } {
    const rules = rulesOf(fileName);
    const grammar = rules && this.loaded.get(rules.grammar);
    if (!rules || !grammar || !this.parser) throw new Error(`No grammar is loaded for ${fileName}: call prepare() first.`);
    return { rules, grammar };
  }

  /** Parses `text` and hands its tree to `use`, then frees it: WebAssembly memory is not garbage-collected. */
  private withTree<T>(fileName: string, text: string, grammar: Grammar, use: (tree: Tree) => T): T {
    this.parser!.setLanguage(grammar.language);
    const tree = this.parser!.parse(text);
    if (!tree) throw new Error(`tree-sitter could not parse ${fileName}.`);
    try {
      return use(tree);
    } finally {
      tree.delete();
    }
  }

  /** Every comment and redundant parenthesis of a file, for a hash nobody asked for at parse time: parsed again. */
  private allSkips(fileName: string, text: string, grammar: Grammar, rules: LanguageRules): number[] {
    return this.withTree(fileName, text, grammar, (tree) => skipsOf(tree, grammar, rules));
  }
}

/** What a hash skips in a whole tree: its comments and redundant parentheses, as [start, end) pairs. */
function skipsOf(tree: Tree, grammar: Grammar, rules: LanguageRules): number[] {
  const comments = grammar.comments.captures(tree.rootNode).flatMap(({ node }) => [node.startIndex, node.endIndex]);
  return grammar.parens && rules.redundantParens ? [...comments, ...redundantParenPairs(grammar.parens.captures(tree.rootNode), rules.redundantParens)] : comments;
}
