// The outline of a file: its declarations, walked from the root of its syntax tree, with the
// names citations give them (`Class.method`, `Outer.Inner.fn`); function bodies are never entered.
import type { Node } from '@vscode/tree-sitter-wasm';
import { CONTAINER_KINDS, type FileSymbols, type SymbolKind } from '../../core/drift/symbols';
import type { Grammar } from './grammars';
import type { DeclarationRule, LanguageRules } from './languages';
import { groupByParent, type OutlineEntry, type Piece } from './packedOutline';
import type { TokenText } from './tokenHash';
import type { WantedWords } from './wantedWords';

/** A declaration the walk found: as packed, and while the tree is alive, where to look for its comments. */
interface Entry extends OutlineEntry {
  /** While the tree is alive: the smallest nodes around each piece's signature and body, to look for comments in. */
  roots?: Array<{ sig: Node; body?: Node }>;
}

/**
 * The outline a parse needs: partial when only some names are wanted. Not finding one is no answer,
 * though: its declaration may not hold it as cited (`Cardinality Between`, after a macro), and a
 * whole outline decides. (A function of its own: a closure here would keep the syntax tree's nodes
 * alive with the symbols.)
 */
export function outlineFor(root: Node, grammar: Grammar, rules: LanguageRules, only: WantedWords | undefined): { index: ReturnType<typeof outline>; partial?: FileSymbols['partial'] } {
  if (only) {
    const index = outline(root, grammar, rules, only);
    let found = true;
    for (const name of only.names) found &&= index.pieces.has(name);
    if (found) return { index, partial: { names: only.names, wholeFile: true } };
  }
  return { index: outline(root, grammar, rules) };
}

/** The top-level declarations of a file, all the repository map keeps: no container is entered. */
export function topLevelOutline(root: Node, grammar: Grammar, rules: LanguageRules): ReturnType<typeof outline> {
  return outline(root, grammar, rules, undefined, true);
}

/**
 * The declarations of a file, walked from the root: a declaration inside a container or scope is
 * its member; one inside anything else (a function body) is not a symbol, so function bodies are
 * never visited. Statement blocks are walked from JavaScript; other subtrees (expressions, which
 * rarely hold a declaration) are searched with the declarations query, inside WebAssembly.
 */
function outline(root: Node, grammar: Grammar, rules: LanguageRules, only?: WantedWords, topLevel = false) {
  const pieces = new Map<string, Entry>();
  // Open declarations around the current one: `prefix` names its members; `members` is false inside a function; `whole`: inside a wanted one.
  const open: Array<{ end: number; prefix: string; members: boolean; inType: boolean; whole: boolean }> = [];
  /** In a partial outline, whether a node at [start, end) is walked: when it may hold a wanted declaration, or is inside one (a container's shape is made of its members). */
  const walked = (wanted: WantedWords, start: number, end: number): boolean => {
    while (open.length && open[open.length - 1].end <= start) open.pop();
    return open[open.length - 1]?.whole === true || wanted.holds(start, end);
  };
  /** Indexes one declaration (in document order): 'closed' when nothing inside it can be a symbol, 'nameless' when it declares no name, else its body. */
  /** `place`: where the walk found the node (asking the tree for a parent or sibling costs a descent from the root). */
  const add = (node: Node, type: string, place?: Place): 'closed' | 'nameless' | { body?: Node } => {
    while (open.length && open[open.length - 1].end <= node.startIndex) open.pop();
    const around = open[open.length - 1];
    if (around && !around.members) return 'closed';
    const rule = rules.declarations[type];
    // A scope (a Rust impl) declares only members.
    if (topLevel && rule.scope) return 'closed';
    // A loop, not map and filter: rules answer arrays of several shapes (`[]`, `[name]`, a map's),
    // and optimised code that met one of them is thrown away when it meets another.
    const declared = rule.names(node);
    const names: string[] = [];
    for (let i = 0; i < declared.length; i++) {
      const name = citableName(declared[i]);
      if (name) names.push(name);
    }
    if (!names.length) return rule.leaf ? 'closed' : 'nameless';
    // A top-level outline keeps no body (its pieces are read for their first lines): not asked for, it costs no call into the tree.
    const body = topLevel ? undefined : (rule.body?.(node) ?? undefined);
    const kind = kindOf(rule, node);
    const opens = !topLevel && body !== undefined && (rule.scope === true || isContainer(rule, node));
    const end = node.endIndex;
    const made = rule.scope ? undefined : piece(node, type, end, body, rule.bodyToEnd === true, place, rules, grammar.commentTypes);
    for (const name of names) {
      const qualified = around ? `${around.prefix}.${name}` : name;
      if (made) record(pieces, qualified, kind === 'function' && around?.inType ? 'method' : kind, made);
      // Pushed for the last name only: a declaration with several names (`A, B int`) has no members.
      if (name === names[names.length - 1]) {
        open.push({ end, prefix: qualified, members: opens, inType: rule.scope === true || TYPE_KINDS.has(kind), whole: around?.whole === true || only?.names.has(qualified) === true });
      }
    }
    return opens ? { body } : 'closed';
  };
  /** A node whose children are being visited: the walk keeps its own stack, as a file may nest deeper than the call stack (5,000 `#if`). */
  interface Frame {
    node: Node;
    body: Node | undefined;
    /** What a wrapper holds besides its declarations (decorators, modifiers, a template's parameters) declares nothing. */
    wrapper: boolean;
    children: (Node | null)[];
    next: number;
    /** The run of other siblings not searched yet; `runNested`: whether one has named children (a name, a type or a literal alone holds no declaration, and needs no query). */
    runStart: number;
    runEnd: number;
    runNested: boolean;
  }
  const frames: Frame[] = [];
  const enter = (node: Node, body?: Node): void => {
    frames.push({ node, body, wrapper: rules.wrappers?.includes(node.type) === true, children: node.namedChildren, next: 0, runStart: -1, runEnd: -1, runNested: false });
  };
  /** Searches a frame's run of other siblings (statements, expressions) with one query over its range. */
  const flush = (frame: Frame): void => {
    // The binding counts query ranges in bytes of UTF-16: two per character.
    if (frame.runNested && frame.runEnd > frame.runStart) {
      for (const { node: found } of grammar.declarations.captures(frame.node, { startIndex: frame.runStart * 2, endIndex: frame.runEnd * 2 })) {
        if (found.id !== frame.node.id && (!only || walked(only, found.startIndex, found.endIndex))) add(found, found.type);
      }
    }
    frame.runStart = -1;
    frame.runNested = false;
  };
  /** Indexes a declaration and enters what may hold its members; enters a block. */
  const visit = (node: Node, type: string, place: Place): void => {
    if (!Object.prototype.hasOwnProperty.call(rules.declarations, type)) return enter(node); // a block
    const added = add(node, type, place);
    if (added === 'closed') return;
    // A body that is no child of its declaration (a typedef's struct): its members are read from it.
    if (added !== 'nameless' && added.body && rules.declarations[type].nestedBody) return enter(added.body);
    // A nameless declaration holds what any block holds; a container: its signature's parts as any subtree, its body's members one by one.
    enter(node, added === 'nameless' ? undefined : added.body);
  };
  // Children in document order: declarations and blocks one by one, each entered before its next sibling.
  enter(root);
  while (frames.length) {
    const frame = frames[frames.length - 1];
    if (frame.next >= frame.children.length) {
      flush(frame);
      frames.pop();
      continue;
    }
    const index = frame.next++;
    const child = frame.children[index];
    if (!child) continue;
    const type = child.type;
    const isBody = frame.body !== undefined && child.id === frame.body.id;
    if (isBody || Object.prototype.hasOwnProperty.call(rules.declarations, type) || grammar.walk.has(type)) {
      flush(frame); // first: the run's declarations come before this child, and the walk keeps to document order
      // A child ends before the next one starts: that start bounds it, without asking the tree.
      if (only && !walked(only, child.startIndex, frame.children[index + 1]?.startIndex ?? frame.node.endIndex)) continue;
      if (isBody) enter(child);
      else visit(child, type, { parent: frame.node, wrapper: frame.wrapper, siblings: frame.children, index });
    } else if (!frame.wrapper && !grammar.commentTypes.has(type) && !grammar.opaque.has(type)) {
      if (frame.runStart < 0) frame.runStart = child.startIndex;
      frame.runEnd = child.endIndex;
      frame.runNested ||= child.namedChildCount > 0;
    }
  }
  // Each container's direct members, grouped in one pass when a container is first wanted: a header can have hundreds of each.
  let members: Map<string, Entry[]> | undefined;
  return {
    pieces,
    /** Finds the comments a wanted symbol's fingerprint needs (a container's: its members' signatures). */
    prepare(name: string, tokens: TokenText) {
      const entry = pieces.get(name);
      if (!entry?.roots) return;
      const container = CONTAINER_KINDS.has(entry.kind);
      entry.pieces.forEach((p, i) => {
        tokens.cover(p.sigStart, p.bodyStart, entry.roots![i].sig);
        if (!container) tokens.cover(p.bodyStart, p.bodyEnd, entry.roots![i].body ?? entry.roots![i].sig);
      });
      if (!container) return;
      members ??= groupByParent(pieces);
      for (const { pieces: memberPieces, roots } of members.get(name) ?? []) {
        if (roots) memberPieces.forEach((p, i) => tokens.cover(p.sigStart, p.bodyStart, roots[i].sig));
      }
    },
  };
}

const TYPE_KINDS: ReadonlySet<SymbolKind> = new Set<SymbolKind>(['class', 'struct', 'interface', 'trait', 'enum']);

/** A name as citations write it: template arguments (`Foo<T>`, not an operator such as `<=>`) and whitespace left out. */
function citableName(name: string): string {
  if (/^[\w.$]*$/.test(name)) return name; // the common case: nothing to drop
  let plain = name;
  for (let previous = ''; previous !== plain; ) {
    previous = plain;
    plain = plain.replace(/(?<=[\w$])<(?![=<])[^<>]*>/g, '');
  }
  return plain.replace(/\s+/g, '');
}

function kindOf(rule: DeclarationRule, node: Node): SymbolKind {
  return typeof rule.kind === 'function' ? rule.kind(node) : rule.kind;
}

function isContainer(rule: DeclarationRule, node: Node): boolean {
  return typeof rule.container === 'function' ? rule.container(node) : rule.container === true;
}

function record(pieces: Map<string, Entry>, name: string, kind: SymbolKind, made: { piece: Piece; roots: { sig: Node; body?: Node } }): void {
  const entry = pieces.get(name);
  // Overloads and redefinitions make one symbol: the first one's kind, every piece hashed in order.
  if (entry) {
    entry.pieces.push(made.piece);
    entry.roots?.push(made.roots);
  } else pieces.set(name, { kind, pieces: [made.piece], roots: [made.roots] });
}

/** Where the walk found a declaration: its parent, and its parent's named children around it. */
interface Place {
  parent: Node;
  /** The parent is one of the language's wrappers. */
  wrapper: boolean;
  siblings: ReadonlyArray<Node | null>;
  index: number;
}

function piece(node: Node, type: string, end: number, body: Node | undefined, bodyToEnd: boolean, place: Place | undefined, rules: LanguageRules, commentTypes: ReadonlySet<string>): { piece: Piece; roots: { sig: Node; body?: Node } } {
  // Decorators, attributes and modifiers belong to the signature: of the first declaration they wrap,
  // so that `public const A = 1, B = 2;` does not make A's value part of B's signature. Wrappers
  // are walked, so a wrapped declaration always has its place (one a query found is inside an expression).
  const wrapped = place?.wrapper && !hasEarlier(type, place);
  const start = wrapped ? place.parent : node;
  let first = start;
  if (rules.leadingAttributes) {
    // A comment between an attribute and its item does not part them. The walk's list of siblings
    // answers without asking the tree, which finds a sibling by descending from the root.
    const known = !wrapped && place;
    let at = known ? place.index : 0;
    const previous = (sibling: Node): Node | null => (known ? (--at >= 0 ? place.siblings[at] : null) : sibling.previousNamedSibling);
    for (let sibling = previous(start); sibling && (rules.leadingAttributes.includes(sibling.type) || commentTypes.has(sibling.type)); sibling = previous(sibling)) {
      if (!commentTypes.has(sibling.type)) first = sibling;
    }
  }
  const bodyStart = body ? body.startIndex : end;
  return {
    piece: {
      sigStart: first.startIndex,
      bodyStart,
      bodyEnd: body ? (bodyToEnd ? end : body.endIndex) : end,
      end,
      startLine: first.startPosition.row,
    },
    // Attributes before a declaration are its siblings: their parent holds the whole signature.
    roots: { sig: first === start ? start : ((wrapped ? undefined : place?.parent) ?? start.parent ?? start), body: body && bodyToEnd ? node : body },
  };
}

/** Whether a declaration of the same type comes before this one in its parent. */
function hasEarlier(type: string, { siblings, index }: Place): boolean {
  for (let i = 0; i < index; i++) if (siblings[i]?.type === type) return true;
  return false;
}
