// Picks real symbols from the engine's parser output (seeded, spread across many files) and writes
// them as citations into generated wiki pages, with anchors stamped by the real engine.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { out } from './code.mjs';
import { rng } from './corpus.mjs';

// What the citation syntax accepts after `path:` (see src/core/drift/citations.ts); other names are not citable.
const CITABLE = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$#][\w$]*)*$/;
const WHOLE_FILE_EVERY = 20; // one citation in 20 names a whole file
const PER_PAGE = 10;

function shuffle(list, random) {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/**
 * `count` citations `{ text, path, symbol? }` over about count/2 files (all of them when the
 * corpus has fewer), taking each file's symbols in a seeded order, round-robin across files.
 */
export function pickCitations(root, files, count, seed) {
  const { TsSymbolParser } = out('adapters/typescript/tsSymbolParser');
  const parser = new TsSymbolParser();
  const random = rng(seed);
  const wantedFiles = Math.ceil(count / 2);
  const chosen = [];
  for (const file of shuffle(files, random)) {
    if (chosen.length >= wantedFiles) break;
    const names = [...parser.parse(file, readFileSync(join(root, file), 'utf8')).symbols.keys()].filter((n) => CITABLE.test(n)).sort();
    if (names.length) chosen.push({ file, names: shuffle(names, random), next: 0, whole: false });
  }
  const citations = [];
  for (let k = 0; citations.length < count; k++) {
    const before = citations.length;
    for (const entry of chosen) {
      if (citations.length >= count) break;
      if (citations.length % WHOLE_FILE_EVERY === WHOLE_FILE_EVERY - 1 && !entry.whole) {
        entry.whole = true;
        citations.push({ text: entry.file, path: entry.file });
      } else if (entry.next < entry.names.length) {
        const symbol = entry.names[entry.next++];
        citations.push({ text: `${entry.file}:${symbol}`, path: entry.file, symbol });
      }
    }
    if (citations.length === before) throw new Error(`Only ${before} citable symbols in the chosen files; wanted ${count}.`);
  }
  return { citations, files: new Set(citations.map((c) => c.path)).size };
}

const TOPICS = ['architecture', 'patterns', 'gotchas', 'testing', 'dependencies', 'decisions'];
const yamlString = (s) => JSON.stringify(s);

/**
 * Writes `citations` into pages of ten under `wikiDir/pages/` and stamps every anchor with the
 * real engine's `currentAnchor`. Returns the page count.
 */
export async function writePages(root, wikiDir, citations, perPage = PER_PAGE) {
  const { DriftEngine } = out('core/drift/driftEngine');
  const { WorkspaceFiles } = out('adapters/files/workspaceFiles');
  const { CachingSymbolParser, TsSymbolParser } = out('adapters/typescript/tsSymbolParser');
  const { WorkspaceSearch } = out('adapters/workspaceSearch');
  const engine = new DriftEngine(root, new WorkspaceFiles(root), new CachingSymbolParser(new TsSymbolParser()), new WorkspaceSearch(root, new WorkspaceFiles(root)));
  mkdirSync(join(wikiDir, 'pages'), { recursive: true });
  let pages = 0;
  for (let start = 0; start < citations.length; start += perPage, pages++) {
    const group = citations.slice(start, start + perPage);
    const anchors = [];
    for (const c of group) {
      const anchor = await engine.currentAnchor({ path: c.path, symbol: c.symbol, outside: false });
      if (!anchor) throw new Error(`${c.text} does not resolve`);
      anchors.push(`  ${yamlString(c.text)}: ${yamlString(anchor)}`);
    }
    const lines = group.map((c, i) => i % 3 === 0
      ? `- \`${c.text}\` is where this part of the flow starts; callers rely on its shape.`
      : i % 3 === 1 ? `- It hands over to \`${c.text}\`, which keeps the invariants described above.`
        : `- Edge cases end in \`${c.text}\`; see the notes below before changing it.`);
    writeFileSync(join(wikiDir, 'pages', `bench-page-${String(pages).padStart(4, '0')}.md`), `---
title: Bench page ${pages}
topic: ${TOPICS[pages % TOPICS.length]}
summary: How part ${pages} of the code fits together, with ${group.length} citations.
status: active
tags: [bench, drift]
created: 2026-11-01
updated: 2026-11-22
corroborations: 1
sources: []
anchors:
${anchors.join('\n')}
---
# Bench page ${pages}

This page walks through one part of the code base. Each citation below names the code it describes,
and the drift check compares the recorded fingerprints with the code as it is now.

${lines.join('\n')}

## Notes

Keep this page in step with the code: when a cited symbol changes, re-read it and stamp the page again.
`);
  }
  return pages;
}
