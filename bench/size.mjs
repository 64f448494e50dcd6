// Sizes of the packaged extension and of the activation bundle, against their caps (the .vsix at
// most 5 MB, dist/extension.js at most 400 KB), with what dist/ holds unpacked and its largest files.
// Needs `npm run package` (dist/ built for production, dist-vsix/repo-wiki.vsix) first.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { verdict } from './lib.mjs';

const CAPS = { vsixBytes: 5 * 1024 * 1024, activationBytes: 400 * 1024 };
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
const VSIX = 'dist-vsix/repo-wiki.vsix';

/** Every file under dir with its size; source maps left out, as the .vsix leaves them out of a production build. */
const filesUnder = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
  const path = join(dir, entry.name);
  if (entry.isDirectory()) return filesUnder(path);
  return entry.name.endsWith('.map') ? [] : [{ path, size: statSync(path).size }];
});

console.log('size');
if (existsSync(VSIX)) {
  const vsix = statSync(VSIX).size;
  console.log(`  .vsix                 ${mb(vsix)}  cap ${mb(CAPS.vsixBytes)} (${(vsix / CAPS.vsixBytes).toFixed(3)} of it): ${verdict(vsix <= CAPS.vsixBytes)}`);
} else {
  console.log(`  .vsix                 not measured: ${VSIX} is missing (run npm run package)`);
}
const main = statSync('dist/extension.js').size;
console.log(`  dist/extension.js     ${kb(main)}  cap ${kb(CAPS.activationBytes)} (${(main / CAPS.activationBytes).toFixed(3)} of it): ${verdict(main <= CAPS.activationBytes)}`);
const files = filesUnder('dist').sort((a, b) => b.size - a.size);
console.log(`  dist/ unpacked        ${mb(files.reduce((sum, file) => sum + file.size, 0))} in ${files.length} files (no cap); the largest:`);
for (const file of files.slice(0, 5)) console.log(`    ${file.path.padEnd(38)} ${mb(file.size).padStart(9)}`);
