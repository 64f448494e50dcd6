import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileCitedCode } from '../../../../src/adapters/citedCode';
import { WorkspaceFiles } from '../../../../src/adapters/files/workspaceFiles';
import { toSource } from '../../../../src/core/ingest/sources';
import { sensitivePathReason } from '../../../../src/core/files/sensitivePaths';

describe('files never sent to a model', () => {
  it('are git internals and files named like secrets', () => {
    for (const file of ['.git/config', 'sub/.git/HEAD', '.env', 'config/.env.production', 'deploy/server.pem', 'keys/id_ed25519', '.npmrc', 'secrets.yaml', 'aws/credentials']) {
      assert.ok(sensitivePathReason(file), file);
    }
    for (const file of ['src/env.ts', 'docs/.gitignore-notes.md', '.github/workflows/ci.yml', 'src/keyboard.ts', 'environment.md']) {
      assert.equal(sensitivePathReason(file), undefined, file);
    }
  });

  it('are left out of an ingest with the reason', () => {
    const skipped = toSource('config/.env', new TextEncoder().encode('API_TOKEN=abc\n'), 1024);
    assert.deepEqual(skipped, { skipped: 'config/.env is named like a file that holds secrets; it is never sent to the model' });
  });

  it('are never read for the librarian lint, nor is a link that leads out of the workspace', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'outside-'));
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'workspace-'));
    try {
      fs.writeFileSync(path.join(outside, 'private.md'), 'not for the model\n');
      fs.mkdirSync(path.join(root, '.git'));
      fs.writeFileSync(path.join(root, '.git', 'config'), '[remote "origin"]\n  url = https://token@example.com/x.git\n');
      fs.writeFileSync(path.join(root, '.env'), 'API_TOKEN=abc\n');
      fs.writeFileSync(path.join(root, 'README.md'), '# Project\n');
      fs.symlinkSync(path.join(outside, 'private.md'), path.join(root, 'notes.md'));
      const code = new FileCitedCode(root, new WorkspaceFiles(root), async () => []);
      assert.equal(await code.codeOf({ path: 'README.md' }), '# Project\n');
      for (const cited of ['.git/config', '.env', 'notes.md', '../outside/private.md']) assert.equal(await code.codeOf({ path: cited }), undefined, cited);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
