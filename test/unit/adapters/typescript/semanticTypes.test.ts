import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorkspaceFiles } from '../../../../src/adapters/files/workspaceFiles';
import { SemanticTypes } from '../../../../src/adapters/typescript/semanticTypes';
import { tempDir } from '../../../support/tempDirs';

/** Workspace files where one file fails to read with `code`, as a disk or permission error would. */
class FailingFiles extends WorkspaceFiles {
  constructor(root: string, private readonly failing: string, private readonly code: string) {
    super(root, { syncReads: true });
  }

  override readFileSync(file: string, maxBytes?: number): Uint8Array {
    if (file === this.failing) throw Object.assign(new Error(`${this.code}: cannot read ${file}`), { code: this.code });
    return super.readFileSync(file, maxBytes);
  }
}

describe('SemanticTypes: what the type checker is told is not there', function () {
  this.timeout(60_000);

  function workspace(): string {
    const root = tempDir('repo-wiki-semantic-');
    fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noLib: true }, files: ['a.ts'] }));
    fs.writeFileSync(path.join(root, 'a.ts'), "import type { Money } from './money';\nexport const price: Money = { cents: 1 };\n");
    fs.writeFileSync(path.join(root, 'money.ts'), 'export interface Money { cents: number }\n');
    return root;
  }

  it('a missing import is absent: the type is still computed', () => {
    const root = workspace();
    fs.rmSync(path.join(root, 'money.ts'));
    const types = new SemanticTypes(root, new WorkspaceFiles(root, { syncReads: true }));
    assert.match(types.typeOf('a.ts', 'price') ?? '', /^[0-9a-f]{8}$/);
  });

  it('an import that could not be read (EACCES, EIO) is an error, not a silent `any` that looks like drift', () => {
    const root = workspace();
    const types = new SemanticTypes(root, new FailingFiles(root, path.join(root, 'money.ts'), 'EIO'));
    assert.throws(() => types.typeOf('a.ts', 'price'), /EIO: cannot read/);
    const readable = new SemanticTypes(root, new WorkspaceFiles(root, { syncReads: true }));
    assert.match(readable.typeOf('a.ts', 'price') ?? '', /^[0-9a-f]{8}$/);
  });
});
