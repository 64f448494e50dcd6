// The wiki the tool benchmarks run on: pages citing real declarations of a corpus (bench/drift/corpus.mjs).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from '../drift/corpus.mjs';

export const WORDS = ['fiber', 'scope', 'layer', 'stream', 'schedule', 'retry', 'queue', 'context', 'runtime', 'cause', 'exit', 'option', 'either', 'metric', 'tracer'];

/** `pages` pages under `root`/.wiki, each citing three real declarations of the corpus, with prose drawn from a seeded word list; returns the citable symbols. */
export function writeCitingWiki(root, corpus, parser, pages) {
  const random = rng(20261123);
  const symbols = [];
  for (const file of corpus.files) {
    if (symbols.length >= pages * 3) break;
    const text = readFileSync(join(root, file), 'utf8');
    for (const name of parser.parse(file, text).symbols.keys()) if (name !== 'default') symbols.push(`${file}:${name}`);
  }
  mkdirSync(join(root, '.wiki', 'pages'), { recursive: true });
  for (let i = 0; i < pages; i++) {
    const topic = [random.pick(WORDS), random.pick(WORDS)];
    const cited = [0, 1, 2].map(() => random.pick(symbols));
    const prose = Array.from({ length: 6 }, () => `The ${topic[0]} of a ${topic[1]} ${random.pick(['runs', 'waits', 'retries', 'closes'])} when its ${random.pick(WORDS)} ends.`).join(' ');
    writeFileSync(join(root, '.wiki', 'pages', `page-${i}.md`), `---
title: ${topic[0]} and ${topic[1]} ${i}
topic: architecture
summary: How the ${topic[0]} meets the ${topic[1]}, part ${i}.
status: active
tags: [${topic.join(', ')}]
created: 2026-11-01
updated: 2026-11-22
---
# ${topic[0]} and ${topic[1]} ${i}

${prose}

See ${cited.map((c) => `\`${c}\``).join(', ')}.
`);
  }
  return symbols;
}
