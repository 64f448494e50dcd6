import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The folder of the built CLI: dist/, holding cli.js, mcp.js and the bundles they require. Every
 * module of src/cli is bundled into one of those two files, so `__dirname` is dist/ in each; the
 * package (package.json, wiki-template/) is its parent.
 */
export const BUNDLE_DIR = __dirname;

/** The package's version, from the package.json beside dist/. */
export function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(BUNDLE_DIR, '..', 'package.json'), 'utf8')) as { version: string }).version;
}
