// A hostile repository for safety tests: a copy of demo/ whose wiki and code hold FIFOs, a device,
// links to /dev/zero and out of the workspace, a sparse 3 GB file, terminal escapes and an oversized
// SCHEMA.md. Opening it must never hang, crash, leak an outside file or write outside it.
//
//   const { makeHostileRepo, snapshotOutside } = require('./hostileRepo.cjs');
//   const repo = makeHostileRepo(dir, { outside });        // dir: the workspace (demo/ is copied in
//                                                          // unless it already has a .wiki/)
//   const repo = makeHostileRepo(dir, { outside, pagesLinkOut: true });   // .wiki/pages links out
//   const before = snapshotOutside(repo.outsideDir);  ...  assert.deepEqual(snapshotOutside(repo.outsideDir), before);
//
// Linux only, and root only (mknod): anything missing throws with what is needed, so a test run
// never quietly tests less than it says.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const DEMO = path.resolve(__dirname, '..', '..', 'demo');

/** Strings that live only in files outside the workspace: none may ever show up in output, the index or a request. */
const CANARIES = ['CANARY-PASSWD', 'CANARY-OUTSIDE-CODE'];
/** The last line of the 3 MB SCHEMA.md: past the 32 KB a model may see. */
const SCHEMA_TAIL = 'SCHEMA-TAIL-MARKER: nothing past the first 32 KB of SCHEMA.md is ever sent.';
/** OSC 52 (sets the clipboard), erase-line + carriage return, the 8-bit CSI, and a right-to-left override. */
const ESCAPES = { osc52: '\x1b]52;c;aGFja2Vk\x07', eraseLine: '\x1b[2K\r', c1Csi: '\u009b', bidi: '\u202e' };
/** A citation of demo code that resolves, without an anchor: drift reports it `unverified`, so the run visibly went on. */
const VALID_CITATION = 'src/pipeline.ts:Pipeline.run';
const ESCAPE_TITLE_YAML = '"Escapes \\e]52;c;aGFja2Vk\\a in \\e[2K\\r a \\u009b title"'; // YAML escapes: the parsed title holds the raw bytes
const ESCAPE_TITLE = `Escapes ${ESCAPES.osc52} in ${ESCAPES.eraseLine} a ${ESCAPES.c1Csi} title`;

function requireLinuxRoot() {
  if (process.platform !== 'linux') {
    throw new Error(`makeHostileRepo needs Linux (FIFOs, /dev/zero, mknod); this is ${process.platform}.`);
  }
  if (!fs.existsSync('/dev/zero')) throw new Error('makeHostileRepo needs /dev/zero.');
}

function run(command, args) {
  try {
    execFileSync(command, args, { stdio: 'pipe' });
  } catch (error) {
    const why = error.code === 'ENOENT' ? `${command} is not installed` : String(error.stderr || error.message).trim();
    throw new Error(`makeHostileRepo: \`${command} ${args.join(' ')}\` failed: ${why}`);
  }
}

function page(frontmatter, body) {
  return `---\n${frontmatter.join('\n')}\n---\n\n${body}`;
}

function frontmatter(title, summary, extra = []) {
  return [
    `title: ${title}`,
    'topic: gotchas',
    `summary: ${summary}`,
    'status: active',
    'tags: [safety]',
    'created: 2026-11-20',
    'updated: 2026-11-20',
    'corroborations: 1',
    'sources: []',
    ...extra,
  ];
}

/**
 * Builds the hostile repository in `dir` (a copy of demo/ when `dir` has no .wiki/ yet) with its
 * outside files in `outside`. Returns what tests assert on:
 *   root, outsideDir, sentinels (outside files that must never change), outsideLog (the file
 *   .wiki/log.jsonl links to), badPages [{ path, code }], badCitations [{ citation, code }],
 *   citationsPage, validCitation, escapePages, escapeTitle, canaries, schemaTail, regularPages.
 */
function makeHostileRepo(dir, { outside, pagesLinkOut = false, demo = DEMO } = {}) {
  requireLinuxRoot();
  if (!outside) throw new Error('makeHostileRepo: pass { outside }, a folder outside the workspace for the files it links to.');
  const root = path.resolve(dir);
  const outsideDir = path.resolve(outside);
  const relative = path.relative(root, outsideDir);
  if (!relative.startsWith('..') && !path.isAbsolute(relative)) throw new Error(`makeHostileRepo: ${outsideDir} is inside the workspace ${root}.`);
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(outsideDir, { recursive: true });
  if (!fs.existsSync(path.join(root, '.wiki'))) fs.cpSync(demo, root, { recursive: true });
  const wiki = (...parts) => path.join(root, '.wiki', ...parts);
  const src = (name) => path.join(root, 'src', name);
  const out = (name) => path.join(outsideDir, name);
  const replaceWith = (file, make) => {
    fs.rmSync(file, { force: true });
    make(file);
  };

  // Outside files: a stand-in for ~/.bashrc (the log links to it), a fake /etc/passwd, outside code.
  fs.writeFileSync(out('bashrc'), '# stand-in for ~/.bashrc: Repo Wiki must never append to it\nexport PS1="$ "\n');
  fs.writeFileSync(out('passwd'), 'root:x:0:0:CANARY-PASSWD:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n');
  fs.writeFileSync(out('secret.ts'), "// Outside the workspace.\nexport const leaked = 'CANARY-OUTSIDE-CODE';\n");

  // The log is appended to on every write: as a link, an append would grow the outside file.
  replaceWith(wiki('log.jsonl'), (file) => fs.symlinkSync(out('bashrc'), file));

  // Cited code that must never be read as code: a FIFO (blocks on open), an endless device, a link
  // out, a 3 GB file (sparse: no disk used) and a character device (/dev/null's numbers).
  replaceWith(src('fifo.ts'), (file) => run('mkfifo', [file]));
  replaceWith(src('zero.ts'), (file) => fs.symlinkSync('/dev/zero', file));
  replaceWith(src('outside.ts'), (file) => fs.symlinkSync(out('secret.ts'), file));
  replaceWith(src('huge.ts'), (file) => {
    const fd = fs.openSync(file, 'w');
    try {
      fs.ftruncateSync(fd, 3 * 1024 ** 3);
    } finally {
      fs.closeSync(fd);
    }
  });
  replaceWith(src('null.ts'), (file) => {
    try {
      execFileSync('mknod', [file, 'c', '1', '3'], { stdio: 'pipe' });
    } catch (error) {
      throw new Error(`makeHostileRepo: \`mknod ${file} c 1 3\` failed (it needs root or CAP_MKNOD; run the tests as root): ${String(error.stderr || error.message).trim()}`);
    }
  });

  // SCHEMA.md of 3 MB: the real conventions first, then filler, then a marker no model may see.
  const schema = fs.readFileSync(wiki('SCHEMA.md'), 'utf8');
  const filler = '- Filler convention that pads SCHEMA.md far past what a model is sent.\n';
  const target = 3 * 1024 * 1024;
  fs.writeFileSync(wiki('SCHEMA.md'), schema + filler.repeat(Math.ceil((target - schema.length) / filler.length)) + SCHEMA_TAIL + '\n');

  const badCitations = [
    { citation: 'src/fifo.ts', code: 'unreadable-file' },
    { citation: 'src/zero.ts', code: 'outside-workspace' },
    { citation: 'src/huge.ts', code: 'unreadable-file' },
    { citation: 'src/null.ts', code: 'unreadable-file' },
    { citation: 'src/outside.ts', code: 'outside-workspace' },
  ];
  const citationsBody = [
    '# Hostile citations',
    '',
    'Each of these cites a file that must never be read as code:',
    '',
    ...badCitations.map(({ citation }) => `- \`${citation}\``),
    '',
    `And one that is fine, so the check visibly goes on: \`${VALID_CITATION}\`.`,
    '',
  ].join('\n');
  const citationsPageText = page(frontmatter('Hostile citations', 'Cites a FIFO, devices, a huge file and a link out of the workspace.'), citationsBody);

  let badPages;
  let escapePages = [];
  if (pagesLinkOut) {
    // .wiki/pages itself leads out: nothing may be written into that folder, no page in it read.
    const outsidePages = out('pages');
    fs.mkdirSync(outsidePages, { recursive: true });
    // An unstamped citation (drift --stamp would write this page) ...
    fs.writeFileSync(path.join(outsidePages, 'outside-page.md'), page(
      frontmatter('Outside page', 'A page in a folder outside the repository.'),
      `# Outside page\n\nCites \`${VALID_CITATION}\` without a fingerprint, so stamping would rewrite this file.\n`,
    ));
    // ... and only missing citations (lint --fix would mark this one stale).
    fs.writeFileSync(path.join(outsidePages, 'outside-stale.md'), page(
      frontmatter('Outside stale page', 'Every citation is missing, so lint --fix would rewrite this file.'),
      '# Outside stale page\n\nCites `src/gone.ts:Gone` only.\n',
    ));
    fs.rmSync(wiki('pages'), { recursive: true, force: true });
    fs.symlinkSync(outsidePages, wiki('pages'));
    badPages = [{ path: '.wiki/pages', code: 'page-outside-wiki' }];
  } else {
    replaceWith(wiki('pages', 'passwd-link.md'), (file) => fs.symlinkSync(out('passwd'), file));
    replaceWith(wiki('pages', 'fifo-page.md'), (file) => run('mkfifo', [file]));
    fs.writeFileSync(wiki('pages', 'hostile-citations.md'), citationsPageText);
    // Two pages with the same escape-laden title: duplicate-title puts that title on the terminal.
    const escapeBody = (n) => `# Terminal escapes ${n}\n\nThis body tries the terminal: ${ESCAPES.osc52} then ${ESCAPES.eraseLine} then ${ESCAPES.c1Csi}31m red, then ${ESCAPES.bidi}txt.exe reversed.\nIt is about terminal escape sequences.\n`;
    for (const [n, slug] of ['terminal-escapes', 'terminal-escapes-again'].entries()) {
      fs.writeFileSync(wiki('pages', `${slug}.md`), page([`title: ${ESCAPE_TITLE_YAML}`, ...frontmatter('', 'Terminal escape sequences in a title and a body.').slice(1)], escapeBody(n + 1)));
      escapePages.push(`.wiki/pages/${slug}.md`);
    }
    badPages = [
      { path: '.wiki/pages/fifo-page.md', code: 'page-not-regular' },
      { path: '.wiki/pages/passwd-link.md', code: 'page-outside-wiki' },
    ];
  }

  const pagesDir = fs.realpathSync(wiki('pages'));
  const regularPages = fs.readdirSync(pagesDir).filter((name) => name.endsWith('.md') && fs.lstatSync(path.join(pagesDir, name)).isFile()).map((name) => `.wiki/pages/${name}`);
  return {
    root,
    outsideDir,
    sentinels: listFiles(outsideDir).map((rel) => path.join(outsideDir, rel)),
    outsideLog: out('bashrc'),
    badPages,
    badCitations,
    citationsPage: pagesLinkOut ? undefined : '.wiki/pages/hostile-citations.md',
    validCitation: VALID_CITATION,
    escapePages,
    escapeTitle: ESCAPE_TITLE,
    escapes: ESCAPES,
    canaries: CANARIES,
    schemaTail: SCHEMA_TAIL,
    regularPages: pagesLinkOut ? [] : regularPages,
  };
}

function listFiles(dir) {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

/**
 * Every entry under the outside folder (links not followed) as path -> "kind sha1 size mode mtime":
 * equal snapshots mean nothing there was written, appended to, chmod-ed, created or removed.
 */
function snapshotOutside(outsideDir) {
  const snapshot = {};
  for (const rel of listFiles(outsideDir)) {
    const full = path.join(outsideDir, rel);
    const stat = fs.lstatSync(full);
    const kind = stat.isFile() ? 'file' : stat.isDirectory() ? 'dir' : stat.isSymbolicLink() ? 'link' : 'other';
    const sha1 = stat.isFile() ? crypto.createHash('sha1').update(fs.readFileSync(full)).digest('hex') : '-';
    snapshot[rel] = `${kind} ${sha1} ${stat.size} ${(stat.mode & 0o7777).toString(8)} ${stat.mtimeMs}`;
  }
  return snapshot;
}

module.exports = { makeHostileRepo, snapshotOutside, CANARIES, ESCAPES, SCHEMA_TAIL, VALID_CITATION };
