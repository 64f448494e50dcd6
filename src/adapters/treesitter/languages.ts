import * as path from 'node:path';
import type { Node } from '@vscode/tree-sitter-wasm';
import type { ReExport, SymbolKind } from '../../core/drift/symbols';
import { redundantPythonParens } from './pythonParens';
import { pythonReExports } from './pythonReExports';

/**
 * How one kind of syntax node declares a symbol. `names` gives its name(s) (none: not a symbol
 * here); `body` the part after its signature (none: the signature is all of it). A `container`'s
 * body holds members named `Container.member`; a `scope` only prefixes its members' names (a Rust
 * `impl`) and is no symbol itself.
 */
export interface DeclarationRule {
  kind: SymbolKind | ((node: Node) => SymbolKind);
  names(node: Node): string[];
  body?(node: Node): Node | null | undefined;
  /** The body runs on to the end of the declaration (`int a = 1, b;`: from the first value on). */
  bodyToEnd?: boolean;
  /** The body is no child of the declaration (a typedef's struct): its members are read from the body itself. */
  nestedBody?: boolean;
  /** Declares nothing inside it (an assignment): one without a name is not looked into either. */
  leaf?: boolean;
  container?: boolean | ((node: Node) => boolean);
  scope?: boolean;
}

export interface LanguageRules {
  /** The grammar's file under the tree-sitter WebAssembly folder. */
  grammar: string;
  declarations: Record<string, DeclarationRule>;
  /**
   * Nodes that wrap a declaration with its decorators, attributes or modifiers (Python's
   * `decorated_definition`, PHP's `property_declaration`): the signature of its first declaration
   * starts there. A wrapper is listed in `walk` too: the walk, not the tree, knows a node's parent.
   */
  wrappers?: readonly string[];
  /** Sibling nodes before a declaration that belong to its signature (Rust's `#[...]` attributes). */
  leadingAttributes?: readonly string[];
  /**
   * Node types that hold declarations as statements (blocks, groups): their children are read one
   * by one. Any other subtree outside a function body is searched whole, which finds the same
   * declarations, only more slowly when it is large.
   */
  walk?: readonly string[];
  /** Node types that never hold a declaration (imports, macros): neither read nor searched. */
  opaque?: readonly string[];
  /** The characters a comment can start with (default `/`): a range without any has no comment. */
  commentStarts?: string;
  /** Node types skipped like comments besides the grammar's own comments (C#'s `#region`). */
  commentLike?: readonly string[];
  /** `'` and `"` quote the same strings (Python): a formatter's choice of quotes is not a change. */
  sameQuotes?: boolean;
  /** Parentheses a formatter may add or drop: a node type, and which of its nodes are redundant (hashed without their parentheses). */
  redundantParens?: { type: string; redundant(node: Node): boolean };
  /** What a module exports from other modules (Python's module-level `from … import`), read from its syntax tree. */
  reExports?: (root: Node) => ReExport[];
}

const field = (name: string) => (node: Node) => node.childForFieldName(name);
/** Every `name` of a declaration of several (`var x, y = 1, 2`). */
const everyName = (node: Node): string[] => node.childrenForFieldName('name').filter((child) => child !== null).map((child) => child!.text);
const named = (fieldName = 'name') => (node: Node): string[] => {
  const text = node.childForFieldName(fieldName)?.text;
  return text ? [dotted(text)] : [];
};
/** `a::b` (C++, Ruby, Rust paths) and `A\B` (PHP) cite as `a.b`. */
const dotted = (text: string) => (text.includes(':') || text.includes('\\') ? text.replace(/::|\\/g, '.').replace(/^\./, '') : text);
const noGenerics = (node: Node | null | undefined): string | undefined => {
  if (!node) return undefined;
  if (node.type === 'generic_type') return noGenerics(node.childForFieldName('type'));
  if (node.type === 'pointer_type' || node.type === 'reference_type') return noGenerics(node.namedChildren.find((child) => child !== null && child.type !== 'mutable_specifier' && child.type !== 'lifetime'));
  // `crate::Foo`, `self::Foo`: this crate's own type, cited by its name (`fmt::Error` keeps its path).
  return dotted(node.type === 'scoped_type_identifier' ? node.text.replace(/^(crate|self|super)::/, '') : node.text);
};
const rule = (kind: SymbolKind, extra: Partial<DeclarationRule> = {}): DeclarationRule => ({ kind, names: named(), body: field('body'), ...extra });
const container = (kind: SymbolKind, extra: Partial<DeclarationRule> = {}) => rule(kind, { container: true, ...extra });
const valued = (kind: SymbolKind, names: DeclarationRule['names'], value = 'value'): DeclarationRule => ({ kind, names, body: field(value) });

/** Go: methods by receiver type (`UUID.String`); struct fields and interface methods as members. */
const goReceiver = (node: Node): string[] => {
  const parameter = node.childForFieldName('receiver')?.namedChildren.find((child) => child?.type === 'parameter_declaration');
  const receiver = noGenerics(parameter?.childForFieldName('type'));
  const name = node.childForFieldName('name')?.text;
  return receiver && name ? [`${receiver}.${name}`] : name ? [name] : [];
};
const GO_CONTAINERS: Record<string, SymbolKind> = { struct_type: 'struct', interface_type: 'interface' };
const goTypeSpec: DeclarationRule = {
  kind: (node) => GO_CONTAINERS[node.childForFieldName('type')?.type ?? ''] ?? 'type',
  names: named(),
  body: field('type'),
  container: (node) => (node.childForFieldName('type')?.type ?? '') in GO_CONTAINERS,
};
/** The value of the first declarator that has one, for a declaration of several names (`int a, b = 1;`). */
const firstValue = (declarators: (node: Node) => Node[], value: (declarator: Node) => Node | null | undefined) => (node: Node) => {
  for (const declarator of declarators(node)) {
    const found = value(declarator);
    if (found) return found;
  }
  return undefined;
};
const childrenOfType = (type: string) => (node: Node): Node[] => node.namedChildren.filter((child): child is Node => child?.type === type);
/** Python and Ruby: a module or class level assignment to a name (a constant, `A::B`, a dataclass field), not to an attribute or item. */
const assignedNames = (types: readonly string[]) => (node: Node): string[] => {
  const left = node.childForFieldName('left');
  if (!left) return [];
  if (types.includes(left.type)) return [dotted(left.text)];
  return left.type === 'pattern_list' ? left.namedChildren.filter((child) => child !== null && types.includes(child.type)).map((child) => child!.text) : [];
};
/** Go: a struct's fields; an embedded field (`sync.Mutex`, `*Base`) is named by its type, as Go names it. */
const goFieldNames = (node: Node): string[] => {
  const names = childrenOfType('field_identifier')(node).map((child) => child.text);
  if (names.length) return names;
  const type = node.childForFieldName('type')?.text.replace(/^\*/, '').replace(/\[.*$/, '');
  return type ? [type.slice(type.lastIndexOf('.') + 1)] : [];
};

const DECLARED_NAMES = ['identifier', 'field_identifier', 'qualified_identifier', 'destructor_name', 'operator_name', 'type_identifier'];
/**
 * C and C++: the names a declaration declares (`int x, *y;`, `int *f(void)`, `Foo::bar`, `~Foo`,
 * `operator bool`), and whether its first declarator is a function's, read in one descent of each
 * declarator: the walk asks for a declaration's names, kind and body in turn, and each answer costs
 * calls into WebAssembly, so the last declaration's answers are kept.
 */
let lastDeclared: { node: Node; names: string[]; isFunction: boolean } | undefined;
const declared = (node: Node): { node: Node; names: string[]; isFunction: boolean } => {
  if (lastDeclared?.node === node) return lastDeclared;
  const names: string[] = [];
  let isFunction = false;
  node.childrenForFieldName('declarator').forEach((start, index) => {
    // A function is found along the first declarator's `declarator` fields (and through `&name()`); a name, through any declarator.
    let onFunctionPath = index === 0;
    let declarator = start;
    for (let depth = 0; declarator && depth < 8; depth++) {
      const type = declarator.type;
      if (onFunctionPath && (type === 'function_declarator' || type === 'operator_cast')) isFunction = true;
      if (type === 'operator_cast') {
        names.push(`operator${declarator.childForFieldName('type')?.text ?? ''}`);
        break;
      }
      if (DECLARED_NAMES.includes(type)) {
        names.push(dotted(declarator.text));
        break;
      }
      // The declarator inside (`*f`, `&name()`, `f(void)`).
      const inner = declarator.childForFieldName('declarator');
      if (!inner && type !== 'reference_declarator') onFunctionPath = false;
      declarator = inner ?? declarator.namedChildren.find((child) => child !== null && child.type.endsWith('declarator')) ?? null;
    }
  });
  return (lastDeclared = { node, names, isFunction });
};
const declaratorName = (node: Node): string[] => declared(node).names;
const hasFunctionDeclarator = (node: Node): boolean => declared(node).isFunction;
/** C and C++: a variable's initial value (of the first declarator that has one) is its body. */
const initialValue = firstValue((node) => node.childrenForFieldName('declarator').filter((child): child is Node => child?.type === 'init_declarator'), (declarator) => declarator.childForFieldName('value'));
/** A typedef of a struct, union or enum with a body (`typedef struct { int x; } Point;`): a container of its fields. */
const typedefBody = (node: Node): Node | null | undefined => node.childForFieldName('type')?.childForFieldName('body');
const cFamily: LanguageRules = {
  grammar: 'tree-sitter-cpp.wasm',
  walk: ['preproc_ifdef', 'preproc_if', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'linkage_specification', 'template_declaration', 'field_declaration_list', 'enumerator_list'],
  opaque: ['preproc_def', 'preproc_function_def', 'preproc_include', 'preproc_call'],
  // `template <typename T>` belongs to the signature of what it declares.
  wrappers: ['template_declaration'],
  declarations: {
    // A constructor's initializer list (`: port_(port)`) is code: part of the body.
    function_definition: { kind: 'function', names: declaratorName, body: (node) => node.namedChildren.find((child) => child?.type === 'field_initializer_list') ?? node.childForFieldName('body'), bodyToEnd: true },
    // A prototype (a header's `int f(void);`), a member function declared in a class, or a variable
    // (`static int counter = 0;`). One that declares a type too (`class S { ... } MACRO_;`) is
    // looked into for it instead; so is one with errors, which macros the parser cannot see
    // through make (`GTEST_API_ extern ...`, a `#define` inside an enum): then only its functions name it.
    declaration: { kind: (node) => (hasFunctionDeclarator(node) ? 'function' : 'variable'), names: (node) => (hasFunctionDeclarator(node) || (!node.hasError && !typedefBody(node)) ? declaratorName(node) : []), body: (node) => (hasFunctionDeclarator(node) ? undefined : initialValue(node)), bodyToEnd: true },
    field_declaration: { kind: (node) => (hasFunctionDeclarator(node) ? 'method' : 'property'), names: declaratorName, body: field('default_value') },
    class_specifier: container('class', { names: (node) => (node.childForFieldName('body') ? named()(node) : []) }),
    struct_specifier: container('struct', { names: (node) => (node.childForFieldName('body') ? named()(node) : []) }),
    union_specifier: container('struct', { names: (node) => (node.childForFieldName('body') ? named()(node) : []) }),
    enum_specifier: container('enum', { names: (node) => (node.childForFieldName('body') ? named()(node) : []) }),
    enumerator: valued('enum-member', named()),
    namespace_definition: container('namespace'),
    alias_declaration: valued('type', named(), 'type'),
    type_definition: { kind: (node) => (typedefBody(node) ? 'struct' : 'type'), names: declaratorName, body: typedefBody, container: (node) => !!typedefBody(node), nestedBody: true },
  },
};

/** Java: a field's (or an interface constant's) names; its value is its body. */
const javaField: DeclarationRule = {
  kind: 'property',
  names: (node) => childrenOfType('variable_declarator')(node).map((child) => child.childForFieldName('name')!.text),
  body: firstValue(childrenOfType('variable_declarator'), (declarator) => declarator.childForFieldName('value')),
  bodyToEnd: true,
};

/** C#: a field's or event's names, from its variable declaration. */
const csDeclarators = (node: Node): Node[] => childrenOfType('variable_declarator')(node.namedChildren.find((child) => child?.type === 'variable_declaration') ?? node);
const csDeclaratorNames = (node: Node): string[] => csDeclarators(node).map((child) => child.childForFieldName('name')?.text ?? child.namedChildren[0]!.text);
/**
 * C#: a property's body is its accessors when they have code; an auto-property's accessors (`{ get;
 * private set; }`) are its signature, and its initializer or `=> expression` its body.
 */
const csPropertyBody = (node: Node): Node | null | undefined => {
  const accessors = node.childForFieldName('accessors');
  if (accessors?.namedChildren.some((accessor) => accessor?.childForFieldName('body'))) return accessors;
  return node.childForFieldName('value');
};

/** Ruby: `Point = Struct.new(:x) do ... end` declares a class whose methods are in the block. */
const rubyClassBlock = (node: Node): Node | null | undefined => {
  const right = node.childForFieldName('right');
  return right?.type === 'call' ? right.childForFieldName('block') : undefined;
};

/** Symbol rules per file extension: the languages drift supports besides TypeScript and JavaScript. */
export const LANGUAGES: Record<string, LanguageRules> = uniform({
  '.py': {
    grammar: 'tree-sitter-python.wasm',
    wrappers: ['decorated_definition'],
    // A statement's own assignment is read from it: the declarations query, searching a module's
    // statements whole, read every value assigned too (2.7 MB of the map bench's 11 MB of Python).
    walk: ['decorated_definition', 'if_statement', 'elif_clause', 'else_clause', 'try_statement', 'except_clause', 'finally_clause', 'with_statement', 'for_statement', 'while_statement', 'expression_statement'],
    // An expression holds no statement, so no declaration: a docstring or a call is not searched.
    opaque: ['import_statement', 'import_from_statement', 'future_import_statement', 'string', 'call'],
    commentStarts: '#',
    sameQuotes: true,
    reExports: pythonReExports,
    redundantParens: { type: 'parenthesized_expression', redundant: redundantPythonParens },
    declarations: {
      class_definition: container('class'),
      function_definition: rule('function'),
      assignment: { kind: 'variable', names: assignedNames(['identifier']), body: field('right'), leaf: true },
    },
  },
  '.go': {
    grammar: 'tree-sitter-go.wasm',
    walk: ['type_declaration', 'const_declaration', 'var_declaration', 'field_declaration_list'],
    opaque: ['package_clause', 'import_declaration'],
    declarations: {
      function_declaration: rule('function'),
      method_declaration: { kind: 'method', names: goReceiver, body: field('body') },
      type_spec: goTypeSpec,
      const_spec: { kind: 'variable', names: everyName, body: field('value') },
      var_spec: { kind: 'variable', names: everyName, body: field('value') },
      type_alias: valued('type', named(), 'type'),
      field_declaration: { kind: 'property', names: goFieldNames },
      // An embedded interface (`io.Reader`) or a constraint (`~int | ~float64`) is part of the interface's shape.
      type_elem: { kind: 'type', names: (node) => [node.text.replace(/\s+/g, '').replace(/\b\w+\./g, '')] },
      method_elem: { kind: 'method', names: named() },
      method_spec: { kind: 'method', names: named() },
    },
  },
  '.rs': {
    grammar: 'tree-sitter-rust.wasm',
    leadingAttributes: ['attribute_item'],
    walk: ['field_declaration_list', 'enum_variant_list'],
    // A macro's tokens are no syntax tree: nothing declared in one is parsed as a declaration.
    opaque: ['use_declaration', 'extern_crate_declaration', 'attribute_item', 'inner_attribute_item', 'macro_invocation', 'macro_definition'],
    declarations: {
      function_item: rule('function'),
      function_signature_item: { kind: 'method', names: named() },
      // A tuple struct's fields have no names: they are its signature (`struct Meters(pub f64)`).
      struct_item: container('struct', { body: (node) => { const body = node.childForFieldName('body'); return body?.type === 'field_declaration_list' ? body : undefined; } }),
      union_item: container('struct'),
      enum_item: container('enum'),
      // A variant's fields are its signature; an explicit discriminant its body.
      enum_variant: valued('enum-member', named()),
      associated_type: { kind: 'type', names: named() },
      trait_item: container('trait'),
      mod_item: container('module'),
      impl_item: { kind: 'class', names: (node) => { const type = noGenerics(node.childForFieldName('type')); return type ? [type] : []; }, body: field('body'), scope: true },
      field_declaration: { kind: 'property', names: named() },
      const_item: valued('variable', named()),
      static_item: valued('variable', named()),
      type_item: valued('type', named(), 'type'),
    },
  },
  '.java': {
    grammar: 'tree-sitter-java.wasm',
    walk: ['class_body', 'interface_body', 'enum_body', 'enum_body_declarations', 'annotation_type_body'],
    // Initializer blocks (`static { }`, `{ }`) run code: a class declared in one is no member.
    opaque: ['package_declaration', 'import_declaration', 'static_initializer', 'block'],
    declarations: {
      class_declaration: container('class'),
      interface_declaration: container('interface'),
      enum_declaration: container('enum'),
      record_declaration: container('class'),
      annotation_type_declaration: container('interface'),
      method_declaration: rule('method'),
      constructor_declaration: rule('constructor'),
      compact_constructor_declaration: rule('constructor'),
      field_declaration: javaField,
      constant_declaration: javaField,
      annotation_type_element_declaration: valued('method', named()),
      enum_constant: { kind: 'enum-member', names: named(), body: (node) => node.childForFieldName('arguments') ?? node.childForFieldName('body'), bodyToEnd: true },
    },
  },
  '.cs': {
    grammar: 'tree-sitter-c-sharp.wasm',
    walk: ['namespace_declaration', 'file_scoped_namespace_declaration', 'enum_member_declaration_list', 'preproc_if', 'preproc_else', 'preproc_elif'],
    opaque: ['using_directive'],
    commentStarts: '/#',
    commentLike: ['preproc_region', 'preproc_endregion'],
    declarations: {
      class_declaration: container('class'),
      struct_declaration: container('struct'),
      interface_declaration: container('interface'),
      enum_declaration: container('enum'),
      record_declaration: container('class'),
      method_declaration: rule('method'),
      constructor_declaration: rule('constructor'),
      property_declaration: { kind: 'property', names: named(), body: csPropertyBody },
      indexer_declaration: { kind: 'property', names: () => ['this'], body: csPropertyBody },
      field_declaration: { kind: 'property', names: csDeclaratorNames, body: firstValue(csDeclarators, (declarator) => (declarator.namedChildren.length > 1 ? declarator.namedChildren.at(-1) : undefined)), bodyToEnd: true },
      event_field_declaration: { kind: 'property', names: csDeclaratorNames },
      event_declaration: { kind: 'property', names: named(), body: field('accessors') },
      delegate_declaration: { kind: 'type', names: named() },
      // Operators and finalizers are not citable, but they are part of their type's shape.
      operator_declaration: rule('method', { names: (node) => [`operator${node.childForFieldName('operator')?.text ?? ''}`] }),
      conversion_operator_declaration: rule('method', { names: (node) => [`${node.children.find((child) => child?.type === 'implicit' || child?.type === 'explicit')?.type ?? ''}operator${node.childForFieldName('type')?.text ?? ''}`] }),
      destructor_declaration: rule('method', { names: (node) => [`~${node.childForFieldName('name')?.text ?? ''}`] }),
      enum_member_declaration: valued('enum-member', named()),
    },
  },
  '.rb': {
    grammar: 'tree-sitter-ruby.wasm',
    commentStarts: '#=',
    declarations: {
      class: container('class', { body: (node) => node.childForFieldName('body') ?? node.namedChildren.find((child) => child?.type === 'body_statement') }),
      module: container('module', { body: (node) => node.childForFieldName('body') ?? node.namedChildren.find((child) => child?.type === 'body_statement') }),
      method: rule('method', { body: (node) => node.childForFieldName('body') ?? node.namedChildren.find((child) => child?.type === 'body_statement') }),
      singleton_method: rule('method', { body: (node) => node.childForFieldName('body') ?? node.namedChildren.find((child) => child?.type === 'body_statement') }),
      assignment: {
        kind: (node) => (rubyClassBlock(node) ? 'class' : 'variable'),
        names: assignedNames(['constant', 'scope_resolution']),
        body: (node) => rubyClassBlock(node) ?? node.childForFieldName('right'),
        container: (node) => !!rubyClassBlock(node),
        nestedBody: true,
        leaf: true,
      },
    },
  },
  '.php': {
    grammar: 'tree-sitter-php.wasm',
    walk: ['namespace_definition', 'compound_statement', 'enum_declaration_list', 'property_declaration', 'const_declaration'],
    opaque: ['namespace_use_declaration', 'php_tag'],
    wrappers: ['property_declaration', 'const_declaration'],
    commentStarts: '/#',
    declarations: {
      class_declaration: container('class'),
      interface_declaration: container('interface'),
      trait_declaration: container('trait'),
      enum_declaration: container('enum'),
      function_definition: rule('function'),
      method_declaration: rule('method'),
      property_element: { kind: 'property', names: (node) => { const name = node.namedChildren.find((child) => child?.type === 'variable_name')?.text; return name ? [name.replace(/^\$/, '')] : []; }, body: field('default_value') },
      // `LIMIT = 10`: the name, then the value.
      const_element: { kind: 'variable', names: (node) => childrenOfType('name')(node).slice(0, 1).map((name) => name.text), body: (node) => node.namedChildren[1] },
      enum_case: { kind: 'enum-member', names: named(), body: field('value') },
    },
  },
  '.c': cFamily,
  '.h': cFamily,
  '.cc': cFamily,
  '.cpp': cFamily,
  '.cxx': cFamily,
  '.hh': cFamily,
  '.hpp': cFamily,
  '.hxx': cFamily,
});

/**
 * The tables with every rule, and every language, given the same properties in the same order:
 * V8 then gives each kind one hidden class, and the walk's reads of them stay monomorphic from one
 * language to the next, rather than being optimised again for each language a thread meets.
 */
function uniform(languages: Record<string, LanguageRules>): Record<string, LanguageRules> {
  const uniformRule = (rule: DeclarationRule): Every<DeclarationRule> => ({
    kind: rule.kind,
    names: rule.names,
    body: rule.body,
    bodyToEnd: rule.bodyToEnd ?? false,
    nestedBody: rule.nestedBody ?? false,
    leaf: rule.leaf ?? false,
    container: rule.container ?? false,
    scope: rule.scope ?? false,
  });
  // A table several extensions share (C and C++) is made uniform once, and stays shared.
  const done = new Map<LanguageRules, LanguageRules>();
  const result: Record<string, LanguageRules> = {};
  for (const [extension, rules] of Object.entries(languages)) {
    const known = done.get(rules);
    if (known) {
      result[extension] = known;
      continue;
    }
    // The table's own keys are kept (its values replaced): a table rebuilt key by key can lose V8's fast properties.
    for (const type of Object.keys(rules.declarations)) rules.declarations[type] = uniformRule(rules.declarations[type]);
    const same: Every<LanguageRules> = {
      grammar: rules.grammar,
      declarations: rules.declarations,
      wrappers: rules.wrappers ?? [],
      leadingAttributes: rules.leadingAttributes,
      walk: rules.walk ?? [],
      opaque: rules.opaque ?? [],
      commentStarts: rules.commentStarts,
      commentLike: rules.commentLike ?? [],
      sameQuotes: rules.sameQuotes ?? false,
      reExports: rules.reExports,
      redundantParens: rules.redundantParens,
    };
    done.set(rules, same);
    result[extension] = same;
  }
  return result;
}

/** The rules of a file's language, by its extension; undefined for a file no grammar parses. */
export function rulesOf(file: string): LanguageRules | undefined {
  return LANGUAGES[path.extname(file).toLowerCase()];
}

/** Every property of T, optional ones too (perhaps undefined): a property added to T must be listed where one is built. */
type Every<T> = { [K in keyof Required<T>]: T[K] };
