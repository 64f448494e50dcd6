// extensionTestsPath entry: VS Code's extension host requires this file and awaits run().
import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';

// Works from test/integration (sources) and out/test/integration (compiled output).
function findReporter(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'test', 'harness', 'count-reporter.cjs');
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`count-reporter.cjs not found above ${__dirname}`);
}

export function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 60000,
    color: false,
    grep: process.env.REPO_WIKI_TEST_GREP || undefined,
  });
  mocha.reporter(findReporter());
  // Each suite is a folder of tests for one kind of window (a plain folder, Restricted Mode, multi-root);
  // REPO_WIKI_TEST_FOLDER lets two suites (e.g. hostile, hostile-restricted) share one folder.
  const suiteDir = path.join(__dirname, process.env.REPO_WIKI_TEST_FOLDER || process.env.REPO_WIKI_TEST_SUITE || 'workspace');
  const files = fs.readdirSync(suiteDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.js')).sort();
  if (files.length === 0) return Promise.reject(new Error(`no *.test.js files in ${suiteDir}`));
  for (const f of files) mocha.addFile(path.join(suiteDir, f));
  return new Promise((resolve, reject) => {
    try {
      mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
    } catch (err) {
      reject(err);
    }
  });
}
