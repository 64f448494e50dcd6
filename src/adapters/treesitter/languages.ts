import type { Node } from '@vscode/tree-sitter-wasm';
import type { SymbolKind } from '../../core/drift/symbols';

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
  container?: boolean | ((node: Node) => boolean);
  scope?: boolean;
}

export interface LanguageRules {
  /** The grammar's file under the tree-sitter WebAssembly folder. */
  grammar: string;
  declarations: Record<string, DeclarationRule>;
  /** Nodes that wrap a declaration with its decorators or attributes (Python's `decorated_definition`): the signature starts there. */
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
}

const field = (name: string) => (node: Node) => node.childForFieldName(name);
const named = (fieldName = 'name') => (node: Node): string[] => {
  const text = node.childForFieldName(fieldName)?.text;
  return text ? [dotted(text)] : [];
};
/** `a::b` (C++, Ruby, Rust paths) and `A\B` (PHP) cite as `a.b`. */
const dotted = (text: string) => (text.includes(':') || text.includes('\\') ? text.replace(/::|\\/g, '.').replace(/^\./, '') : text);
const noGenerics = (node: Node | null | undefined): string | undefined => {
  if (!node) return undefined;
  if (node.type === 'generic_type') return noGenerics(node.childForFieldName('type'));
  if (node.type === 'pointer_type' || node.type === 'reference_type') return noGenerics(node.namedChildren.find((child) => child !== null && child.type !== 'mutable_specifier'));
  return dotted(node.text);
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
const allNamed = (type: string) => (node: Node): string[] => node.children.filter((child) => child?.type === type).map((child) => child!.text);

/** C and C++: the name inside a declarator (`int *f(void)`, `Foo::bar`, `~Foo`). */
const declaratorName = (node: Node): string[] => {
  let declarator = node.childForFieldName('declarator');
  for (let depth = 0; declarator && depth < 8; depth++) {
    if (['identifier', 'field_identifier', 'qualified_identifier', 'destructor_name', 'operator_name', 'type_identifier'].includes(declarator.type)) return [dotted(declarator.text)];
    declarator = declarator.childForFieldName('declarator') ?? declarator.namedChildren.find((child) => child !== null && child.type.endsWith('declarator')) ?? null;
  }
  return [];
};
const hasFunctionDeclarator = (node: Node): boolean => {
  let declarator = node.childForFieldName('declarator');
  for (let depth = 0; declarator && depth < 8; depth++) {
    if (declarator.type === 'function_declarator') return true;
    declarator = declarator.childForFieldName('declarator');
  }
  return false;
};
const cFamily: LanguageRules = {
  grammar: 'tree-sitter-cpp.wasm',
  walk: ['preproc_ifdef', 'preproc_if', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'linkage_specification', 'template_declaration', 'field_declaration_list', 'enumerator_list'],
  opaque: ['preproc_def', 'preproc_function_def', 'preproc_include', 'preproc_call'],
  declarations: {
    function_definition: { kind: 'function', names: declaratorName, body: field('body') },
    // A prototype (a header's `int f(void);`) or a member function declared in a class.
    declaration: { kind: 'function', names: (node) => (hasFunctionDeclarator(node) ? declaratorName(node) : []) },
    field_declaration: { kind: (node) => (hasFunctionDeclarator(node) ? 'method' : 'property'), names: declaratorName, body: field('default_value') },
    class_specifier: container('class', { names: (node) => (node.childForFieldName('body') ? named()(node) : []) }),
    struct_specifier: container('struct', { names: (node) => (node.childForFieldName('body') ? named()(node) : []) }),
    union_specifier: container('struct', { names: (node) => (node.childForFieldName('body') ? named()(node) : []) }),
    enum_specifier: container('enum', { names: (node) => (node.childForFieldName('body') ? named()(node) : []) }),
    enumerator: valued('enum-member', named()),
    namespace_definition: container('namespace'),
    type_definition: { kind: 'type', names: declaratorName },
  },
};

/** Symbol rules per file extension: the languages drift supports besides TypeScript and JavaScript. */
export const LANGUAGES: Record<string, LanguageRules> = {
  '.py': {
    grammar: 'tree-sitter-python.wasm',
    wrappers: ['decorated_definition'],
    walk: ['decorated_definition', 'if_statement', 'elif_clause', 'else_clause', 'try_statement', 'except_clause', 'finally_clause', 'with_statement', 'for_statement', 'while_statement'],
    opaque: ['import_statement', 'import_from_statement', 'future_import_statement'],
    commentStarts: '#',
    declarations: {
      class_definition: container('class'),
      function_definition: rule('function'),
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
      const_spec: valued('variable', named()),
      var_spec: valued('variable', named()),
      field_declaration: { kind: 'property', names: allNamed('field_identifier') },
      method_elem: { kind: 'method', names: named() },
      method_spec: { kind: 'method', names: named() },
    },
  },
  '.rs': {
    grammar: 'tree-sitter-rust.wasm',
    leadingAttributes: ['attribute_item'],
    walk: ['field_declaration_list', 'enum_variant_list'],
    opaque: ['use_declaration', 'extern_crate_declaration', 'attribute_item', 'inner_attribute_item'],
    declarations: {
      function_item: rule('function'),
      function_signature_item: { kind: 'method', names: named() },
      struct_item: container('struct'),
      enum_item: container('enum'),
      enum_variant: { kind: 'enum-member', names: named(), body: field('body') },
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
    opaque: ['package_declaration', 'import_declaration'],
    declarations: {
      class_declaration: container('class'),
      interface_declaration: container('interface'),
      enum_declaration: container('enum'),
      record_declaration: container('class'),
      annotation_type_declaration: container('interface'),
      method_declaration: rule('method'),
      constructor_declaration: rule('constructor'),
      field_declaration: { kind: 'property', names: (node) => node.children.filter((child) => child?.type === 'variable_declarator').map((child) => child!.childForFieldName('name')!.text) },
      enum_constant: { kind: 'enum-member', names: named(), body: field('body') },
    },
  },
  '.cs': {
    grammar: 'tree-sitter-c-sharp.wasm',
    walk: ['namespace_declaration', 'file_scoped_namespace_declaration', 'enum_member_declaration_list'],
    opaque: ['using_directive'],
    declarations: {
      class_declaration: container('class'),
      struct_declaration: container('struct'),
      interface_declaration: container('interface'),
      enum_declaration: container('enum'),
      record_declaration: container('class'),
      method_declaration: rule('method'),
      constructor_declaration: rule('constructor'),
      property_declaration: { kind: 'property', names: named(), body: (node) => node.childForFieldName('accessors') ?? node.childForFieldName('value') },
      field_declaration: { kind: 'property', names: (node) => node.namedChildren.find((child) => child?.type === 'variable_declaration')?.namedChildren.filter((child) => child?.type === 'variable_declarator').map((child) => child!.childForFieldName('name')?.text ?? child!.namedChildren[0]!.text) ?? [] },
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
    },
  },
  '.php': {
    grammar: 'tree-sitter-php.wasm',
    walk: ['namespace_definition', 'compound_statement', 'enum_declaration_list'],
    opaque: ['namespace_use_declaration', 'php_tag'],
    commentStarts: '/#',
    declarations: {
      class_declaration: container('class'),
      interface_declaration: container('interface'),
      trait_declaration: container('trait'),
      enum_declaration: container('enum'),
      function_definition: rule('function'),
      method_declaration: rule('method'),
      property_element: { kind: 'property', names: (node) => { const name = node.namedChildren.find((child) => child?.type === 'variable_name')?.text; return name ? [name.replace(/^\$/, '')] : []; }, body: field('default_value') },
      const_element: { kind: 'variable', names: (node) => allNamed('name')(node).slice(0, 1) },
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
};
