// npm run bench: builds what the benchmarks measure, then runs each one. Figures, not pass/fail tests.
import { execSync } from 'node:child_process';

const run = (command) => execSync(command, { stdio: 'inherit' });
run('npm run package --silent');
run('npx tsc -p tsconfig.test.json');
for (const bench of ['activation', 'size', 'index', 'fileAccess/index', 'drift/index', 'drift/changedSince', 'drift/languages', 'tools/index', 'mcp/index', 'chat/retrieval', 'chat/toolLoop', 'retrieval/index', 'chat/persist', 'chat/render', 'ingest/index', 'authoring/index', 'authoring/graph']) {
  console.log('');
  run(`node --expose-gc bench/${bench}.mjs`);
}
