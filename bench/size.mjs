// Sizes of the packaged extension and of the activation bundle, against their goals.
import { statSync } from 'node:fs';
import { verdict } from './lib.mjs';

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const vsix = statSync('dist-vsix/repo-wiki.vsix').size;
const main = statSync('dist/extension.js').size;
console.log('size');
console.log(`  .vsix                 ${kb(vsix)}  goal <= 5 MB (${(vsix / (5 * 1024 * 1024)).toFixed(3)} of it): ${verdict(vsix <= 5 * 1024 * 1024)}`);
console.log(`  dist/extension.js     ${kb(main)}  goal <= 400 KB (${(main / (400 * 1024)).toFixed(3)} of it): ${verdict(main <= 400 * 1024)}`);
