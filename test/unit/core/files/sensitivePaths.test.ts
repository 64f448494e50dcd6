import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileCitedCode } from '../../../../src/adapters/citedCode';
import { WorkspaceFiles } from '../../../../src/adapters/files/workspaceFiles';
import { toSource } from '../../../../src/core/ingest/sources';
import { sensitivePathReason } from '../../../../src/core/files/sensitivePaths';
import { openLocalCore } from '../../../../src/adapters/localCore';

describe('files never sent to a model', () => {
  it('are git internals and files named like secrets', () => {
    for (const file of ['.git/config', 'sub/.git/HEAD', '.env', 'config/.env.production', 'deploy/server.pem', 'keys/id_ed25519', '.npmrc', 'secrets.yaml', 'aws/credentials']) {
      assert.ok(sensitivePathReason(file), file);
    }
    for (const file of ['src/env.ts', 'docs/.gitignore-notes.md', '.github/workflows/ci.yml', 'src/keyboard.ts', 'environment.md']) {
      assert.equal(sensitivePathReason(file), undefined, file);
    }
  });

  it('include the credential files secret scanners and the tools themselves name (red-team pass, issue 36)', () => {
    const refused = [
      // Named by the red team: each was readable by read_code and grep_code.
      '.git-credentials', '.envrc', '.ssh/id_ed25519_work', 'home/.ssh/id_ed25519_deploy', '.docker/config.json', '.kube/config', 'terraform.tfstate',
      // The same kinds of file under other names and places.
      'infra/terraform.tfstate.backup', 'envs/prod/terraform.tfvars', '.ssh/config', '.ssh/authorized_keys', 'keys/deploy_rsa', '.gnupg/private-keys-v1.d/A1.key',
      '.aws/credentials', '.aws/config', '.netrc', '_netrc', '.pgpass', '.my.cnf', '.dockercfg', '.vault-token', '.config/gh/hosts.yml', '.config/gcloud/application_default_credentials.json',
      '.azure/msal_token_cache.json', '.terraform.d/credentials.tfrc.json', '.cargo/credentials.toml', '.gem/credentials', 'ci/kubeconfig', 'clusters/staging.kubeconfig',
      '.bash_history', '.zsh_history', '.psql_history', 'jenkins/credentials.xml', 'deploy/prod.env', 'certs/client.p12', 'certs/bundle.pkcs12', 'putty/server.ppk', 'vpn/office.ovpn', 'secrets.yml',
      'ID_RSA', '.ENVRC',
    ];
    for (const file of refused) assert.ok(sensitivePathReason(file), file);
    const allowed = [
      'src/config.ts', 'docs/ssh.md', 'terraform/main.tf', 'terraform/variables.tf', 'src/kube/config.ts', 'src/docker/config.json.ts', 'docs/credentials.md', 'src/credentials.ts',
      'src/history.ts', 'docs/terraform.md', 'src/ssh/client.ts', 'src/envrc-loader.ts', 'package.json', 'src/keys.ts', 'config/settings.json', 'src/gitCredentials.ts',
    ];
    for (const file of allowed) assert.equal(sensitivePathReason(file), undefined, file);
  });

  it('are refused by read_code, the tool agents read code with', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'workspace-'));
    try {
      fs.mkdirSync(path.join(root, '.wiki', 'pages'), { recursive: true });
      const files: Record<string, string> = {
        '.git-credentials': 'https://user:ghp_token@example.com\n', '.envrc': 'export API_TOKEN=abc\n', '.ssh/id_ed25519_work': '-----BEGIN OPENSSH PRIVATE KEY-----\n',
        '.docker/config.json': '{"auths":{"x":{"auth":"dXNlcjpwYXNz"}}}\n', '.kube/config': 'users:\n- name: x\n', 'terraform.tfstate': '{"resources":[]}\n', 'src/config.ts': 'export const port = 80;\n',
      };
      for (const [file, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), text);
      }
      const readCode = openLocalCore(root).tools().find((tool) => tool.name === 'read_code')!;
      for (const file of Object.keys(files).filter((name) => name !== 'src/config.ts')) {
        const result = await readCode.run({ citation: file });
        assert.equal(result.ok, false, file);
        assert.doesNotMatch(result.text, /API_TOKEN|PRIVATE KEY|dXNlcjpwYXNz|ghp_token|users:|resources/, file);
      }
      const allowed = await readCode.run({ citation: 'src/config.ts' });
      assert.equal(allowed.ok, true, allowed.text);
      assert.match(allowed.text, /export const port = 80;/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
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
