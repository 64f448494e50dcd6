// The parse floor of the tree-sitter benches (drift/languages, generate/map): what any parse of a
// file must cost, the least a tool that reads declarations can do.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

/** Reads each file, parses it with its grammar, and walks its top-level declarations into a name table. */
export function floorParse(parser, root, files) {
  const { Parser: TreeParser } = require('@vscode/tree-sitter-wasm');
  const raw = new TreeParser();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    raw.setLanguage(parser.languageOf(file));
    const tree = raw.parse(text);
    const names = new Map();
    for (const node of tree.rootNode.namedChildren) {
      const name = node?.childForFieldName('name')?.text;
      if (name) names.set(name, node.startIndex);
    }
    tree.delete();
  }
}
