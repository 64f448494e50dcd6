import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// docs/settings.md is generated from package.json by scripts/settings-doc.mjs; these tests keep the two in step.


interface ConfigurationSection {
  properties?: Record<string, unknown>;
}

/** Every setting key in package.json `contributes.configuration` (an object or an array of them), in order. */
function settingKeys(root: string): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    contributes?: { configuration?: ConfigurationSection | ConfigurationSection[] };
  };
  const configuration = manifest.contributes?.configuration;
  const sections = Array.isArray(configuration) ? configuration : configuration ? [configuration] : [];
  return sections.flatMap((section) => Object.keys(section.properties ?? {}));
}

/** The repository root, from out/test/unit/docs/ where the compiled test runs. */
const ROOT = path.resolve(__dirname, '../../../..');
const SCRIPT = path.join(ROOT, 'scripts', 'settings-doc.mjs');
const SETTINGS_DOC = path.join(ROOT, 'docs', 'settings.md');

describe('docs/settings.md, the settings reference', () => {
  it('has a table row for every setting in package.json', () => {
    const keys = settingKeys(ROOT);
    assert.ok(keys.length > 0, 'package.json contributes no settings');
    const doc = fs.readFileSync(SETTINGS_DOC, 'utf8');
    const missing = keys.filter((key) => !doc.includes(`| \`${key}\` |`));
    assert.deepEqual(missing, [], `settings missing from docs/settings.md (run: npm run docs:settings)`);
  });

  it('names no repoWiki.* setting that package.json does not have', () => {
    const keys = new Set(settingKeys(ROOT));
    const doc = fs.readFileSync(SETTINGS_DOC, 'utf8');
    const named = new Set([...doc.matchAll(/repoWiki(?:\.[A-Za-z0-9_]+)+/g)].map((m) => m[0]));
    assert.deepEqual([...named].filter((key) => !keys.has(key)), []);
  });

  it('is what scripts/settings-doc.mjs generates (--check exits 0)', function () {
    this.timeout(15000); // one node process: about 0.1 s, more on a loaded machine
    const r = spawnSync(process.execPath, [SCRIPT, '--check'], { cwd: ROOT, encoding: 'utf8', timeout: 10000 });
    assert.equal(r.status, 0, `node scripts/settings-doc.mjs --check exited with ${r.status ?? r.signal}:\n${r.stdout}${r.stderr}`);
  });

  it('--check exits 1 and names the setting when the file is out of date', function () {
    this.timeout(15000);
    // A copy of the script, package.json and the doc with one row gone, so the real file is never touched.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-settings-doc-'));
    try {
      fs.mkdirSync(path.join(dir, 'scripts'));
      fs.mkdirSync(path.join(dir, 'docs'));
      fs.copyFileSync(SCRIPT, path.join(dir, 'scripts', 'settings-doc.mjs'));
      fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
      const [first] = settingKeys(ROOT);
      const doc = fs.readFileSync(SETTINGS_DOC, 'utf8').split('\n').filter((line) => !line.startsWith(`| \`${first}\` |`)).join('\n');
      fs.writeFileSync(path.join(dir, 'docs', 'settings.md'), doc);
      const r = spawnSync(process.execPath, [path.join(dir, 'scripts', 'settings-doc.mjs'), '--check'], { cwd: dir, encoding: 'utf8', timeout: 10000 });
      assert.equal(r.status, 1, `${r.stdout}${r.stderr}`);
      assert.match(r.stderr, new RegExp(`missing:\\s+${first.replace(/\./g, '\\.')}`));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
