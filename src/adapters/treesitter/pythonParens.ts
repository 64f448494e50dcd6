import type { Node } from '@vscode/tree-sitter-wasm';

/** Expressions that parse alone wherever they stand: parentheses around one change nothing. */
const ATOMS = new Set([
  'identifier', 'attribute', 'call', 'subscript', 'string', 'concatenated_string', 'integer', 'float', 'true', 'false', 'none',
  'list', 'dictionary', 'set', 'tuple', 'list_comprehension', 'dictionary_comprehension', 'set_comprehension', 'parenthesized_expression',
]);
/** Statements whose expression is whole in its place: `return (x)`, `if (a):`, `x = (a + b)`. */
const WHOLE_EXPRESSION: Readonly<Record<string, string | undefined>> = {
  return_statement: undefined, expression_statement: undefined, if_statement: 'condition', elif_clause: 'condition', while_statement: 'condition',
  assignment: 'right', augmented_assignment: 'right',
};

/**
 * Whether a Python `parenthesized_expression` is redundant: removing its parentheses cannot change
 * the parse. Around an atom or a primary (`(x)`, `(f(a))`; not `(1).real`, where `1.real` is no
 * number), or as the whole expression of return, if, elif, while, an assignment's right side or
 * an expression statement (`return (a + b)`). `(a, b)` is a tuple and `(x for x in y)` a
 * generator (other node types), `(a + b) * c` needs them, and a walrus needs them at statement level.
 */
export function redundantPythonParens(node: Node): boolean {
  const inner = node.namedChildren.filter((child) => child !== null && child.type !== 'comment');
  if (inner.length !== 1 || node.text.charCodeAt(node.text.length - 1) !== 41) return false;
  const expression = inner[0]!;
  if (expression.type === 'named_expression' || expression.type === 'yield') return false;
  const parent = node.parent;
  if (ATOMS.has(expression.type)) return !((expression.type === 'integer' || expression.type === 'float') && parent?.type === 'attribute');
  if (!parent || !(parent.type in WHOLE_EXPRESSION)) return false;
  const field = WHOLE_EXPRESSION[parent.type];
  if (field === undefined) return parent.namedChildren.filter((child) => child !== null && child.type !== 'comment').length === 1;
  return parent.childForFieldName(field)?.id === node.id;
}
