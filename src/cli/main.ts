import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { openWorkspace } from '../adapters/workspace';
import type { LocalCore } from '../adapters/localCore';
import { readTemplate } from '../adapters/wikiTemplate';
import { WikiError } from '../core/errors';
import type { DriftIssue } from '../core/drift/driftEngine';
import type { LintIssue } from '../core/model';
import { terminalSafe } from '../core/text/terminalText';
import type { Wiki } from '../core/wiki/wiki';
import { mergeIndexCommand } from './indexMergeCommand';
import { LIBRARIAN_LINT_DEFAULTS, MODEL_DEFAULTS } from '../core/defaults';

const USAGE = `Usage: repo-wiki <command> [--workspace DIR] [--format text|json]

Commands:
  init            create .wiki/ in the workspace (never overwrites an existing wiki)
  index rebuild   regenerate .wiki/index.json and .wiki/index.md from the pages
  lint            check pages; exits 1 when any error is found (--fix applies the safe
                  fixes first; --llm adds the librarian's pass, needs ANTHROPIC_API_KEY)
  drift           check code citations against the code; exits 1 when any is in error
                  (--format github prints GitHub Actions annotations; --stamp records
                  fingerprints for citations that have none)
  query QUESTION  answer a question from the wiki, as the chat does, in one turn; uses
                  ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL) when set, else answers offline
  hook install    add the drift check to the repository's pre-commit hook (runs on commits
                  that touch .wiki/ or a cited file; an existing hook keeps running)
  merge-driver install
                  merge index.json and index.md page by page in this clone's git merges,
                  so branches that add different pages merge without a conflict
  index merge BASE OURS THEIRS [PATH]
                  the merge driver itself (git runs it); exits 1 on a conflict
  ingest PATH...  the librarian folds files (or the files under folders) into pages; prints
                  the plan, then writes it after a yes on a terminal, or with --yes
  mcp             serve the wiki to agents over stdio (Model Context Protocol): the
                  read-only tools, propose_page_change, and the pages, index and schema
                  as resources
  upkeep          mark pages citing code that no longer exists stale (and active again
                  when it is back), archive stale and superseded pages untouched for
                  --archive-after-days (default 90), rebuild the index, log what changed
  backlinks SLUG  the pages that link to a page, with the line of each link
  page rename OLD NEW
                  rename a page and every [[link]] to it; refused when NEW is invalid or taken
  proposals list | show ID | accept ID | reject ID
                  the page changes agents proposed, waiting for review; accept writes
                  one as an ingest does, reject deletes it

Options:
  --workspace DIR  the workspace folder (default: the current directory)
  --format FORMAT  text (default) or json; drift also takes github
  --stamp          with drift: stamp citations that have no fingerprint yet
  --review SLUG    with drift: you checked this page against the code; stamp all its
                   citations again so the drift you saw is cleared (repeatable)
  --diff           with drift: under each changed citation, a unified diff of its code since
                   the commit its page was verified at
  --semantic       with drift: also compare each cited symbol's resolved type (a ts-morph
                   program over tsconfig.json), so a type changed through a callee is
                   type-changed; stamping then records types
  --changed-since REF
                   with drift: check only what changed since REF (from its merge base with
                   HEAD, uncommitted changes included): edited pages, and citations into
                   changed files
  --offline        with query: answer from retrieval alone, without a model
  --model NAME     with query and ingest: the Claude model (default ${MODEL_DEFAULTS.model})
  --fix            with lint: rebuild the index, unlink deleted pages, mark pages whose
                   citations are all missing as stale; with drift: point citations of moved
                   and renamed symbols at where the code is now
  --llm            with lint: also run the librarian's pass (--max-pages N, --max-tokens N,
                   --min-age-days N: only pages not updated for N days, default ${LIBRARIAN_LINT_DEFAULTS.minAgeDays})
  --yes            with ingest: apply the plan without asking
  --force          with ingest: ingest sources again even when unchanged since their last
                   successful ingest (which are otherwise skipped before any model call)
  --dry-run        with ingest and upkeep: print the plan and write nothing
  --archive-after-days N
                   with upkeep: archive stale and superseded pages untouched this long
  -h, --help       show this help`;

type Format = 'text' | 'json' | 'github';

interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Writes without a newline, for streaming; optional for callers that only collect lines. */
  write?(text: string): void;
}

/** Runs one CLI invocation and returns its exit code: 0 ok, 1 lint errors, 2 usage or failure. */
export async function runCli(argv: string[], terminal: Io, cwd = process.cwd()): Promise<number> {
  const io = escapedIo(terminal);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        format: { type: 'string', default: 'text' },
        stamp: { type: 'boolean', default: false },
        review: { type: 'string', multiple: true },
        'changed-since': { type: 'string' },
        diff: { type: 'boolean', default: false },
        semantic: { type: 'boolean', default: false },
        offline: { type: 'boolean', default: false },
        model: { type: 'string', default: MODEL_DEFAULTS.model },
        yes: { type: 'boolean', default: false },
        fix: { type: 'boolean', default: false },
        llm: { type: 'boolean', default: false },
        'max-pages': { type: 'string', default: String(LIBRARIAN_LINT_DEFAULTS.maxPages) },
        'max-tokens': { type: 'string', default: String(LIBRARIAN_LINT_DEFAULTS.maxTokens) },
        'min-age-days': { type: 'string', default: String(LIBRARIAN_LINT_DEFAULTS.minAgeDays) },
        'dry-run': { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        'archive-after-days': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || !positionals.length) {
    (values.help ? io.out : io.err)(USAGE);
    return values.help ? 0 : 2;
  }
  if (positionals[0] === 'index' && positionals[1] === 'merge') return mergeIndexCommand(positionals.slice(2), io, USAGE);
  const command = ['query', 'ingest', 'proposals', 'backlinks'].includes(positionals[0]) ? positionals[0]
    : positionals[0] === 'page' && positionals[1] === 'rename' ? 'page rename' : positionals.join(' ');
  const format = values.format as Format;
  const formats: Format[] = command === 'drift' ? ['text', 'json', 'github'] : ['text', 'json'];
  if (!formats.includes(format)) {
    io.err(`--format must be ${formats.join(' or ')}, not "${values.format}".`);
    return 2;
  }
  const root = path.resolve(cwd, values.workspace ?? '.');
  const { wiki } = openWorkspace(root);
  // The whole core (TypeScript, the tools) loads only for the commands that need it.
  const core = async () => (await import('../adapters/localCore')).openLocalCore(root, { semantic: values.semantic === true });
  try {
    if (command === 'init') return await init(wiki, format, io);
    if (!['index rebuild', 'lint', 'drift', 'query', 'ingest', 'mcp', 'proposals', 'hook install', 'merge-driver install', 'backlinks', 'page rename', 'upkeep'].includes(command)) {
      io.err(`Unknown command "${command}".\n\n${USAGE}`);
      return 2;
    }
    if (!(await wiki.exists())) {
      throw new WikiError('no-wiki', `There is no .wiki/ folder in ${wiki.root}.`, 'Run "repo-wiki init" first, or pass --workspace.');
    }
    if (command === 'drift') return await drift(await core(), format, { stamp: values.stamp === true, review: values.review ?? [], changedSince: values['changed-since'], fix: values.fix === true, diff: values.diff === true }, io);
    if (command === 'hook install') {
      const { installPreCommitHook } = await import('../adapters/git/gitHooks');
      const result = await installPreCommitHook(wiki.root, path.join(__dirname, 'cli.js'));
      if (format === 'json') io.out(JSON.stringify(result));
      else io.out(`${result.action === 'unchanged' ? 'Already installed' : `Pre-commit drift check ${result.action}`}: ${result.path}`);
      return 0;
    }
    if (command === 'merge-driver install') {
      const { installMergeDriver } = await import('../adapters/git/gitHooks');
      const result = await installMergeDriver(wiki.root, path.join(__dirname, 'cli.js'));
      if (format === 'json') io.out(JSON.stringify(result));
      else io.out(`Index merge driver ${result.driver}${result.attributes === 'added' ? '; .wiki/.gitattributes names it now (commit that change)' : ''}.`);
      return 0;
    }
    if (command === 'ingest') {
      const { ingestCommand } = await import('./ingest');
      const options = { model: String(values.model), yes: values.yes === true, dryRun: values['dry-run'] === true, json: format === 'json', force: values.force === true };
      return await ingestCommand(await core(), positionals.slice(1), options, io, cwd);
    }
    if (command === 'mcp') return await (await import('./mcp')).mcpCommand(await core(), io.err);
    if (command === 'proposals') return await (await import('./proposals')).proposalsCommand(await core(), positionals.slice(1), format as 'text' | 'json', io);
    if (command === 'backlinks') return await (await import('./authoring')).backlinksCommand(wiki, positionals.slice(1), format as 'text' | 'json', io);
    if (command === 'page rename') return await (await import('./authoring')).pageRenameCommand(wiki, positionals.slice(2), format as 'text' | 'json', io);
    if (command === 'upkeep') {
      const days = values['archive-after-days'] === undefined ? undefined : Number(values['archive-after-days']);
      if (days !== undefined && !(Number.isInteger(days) && days >= 0)) {
        io.err('--archive-after-days must be a whole number of days (0 or more).');
        return 2;
      }
      return await (await import('./upkeep')).upkeepCommand(await core(), { dryRun: values['dry-run'] === true, json: format === 'json', archiveAfterDays: days }, io);
    }
    if (command === 'query') return await query(await core(), positionals.slice(1).join(' '), format, { offline: values.offline === true, model: String(values.model) }, io);
    if (command === 'lint') {
      const llm = values.llm ? { model: String(values.model), maxPages: Number(values['max-pages']), maxTokens: Number(values['max-tokens']), minAgeDays: Number(values['min-age-days']) } : undefined;
      if (llm && !(llm.maxPages > 0 && llm.maxTokens > 0 && llm.minAgeDays >= 0)) {
        io.err('--max-pages and --max-tokens must be positive numbers, and --min-age-days 0 or more.');
        return 2;
      }
      return await lint(wiki, format, io, { fix: values.fix === true, llm, core });
    }
    return await rebuild(wiki, format, io);
  } catch (error) {
    io.err(`repo-wiki: ${error instanceof WikiError ? error.userMessage : (error as Error).message}`);
    return 2;
  }
}

async function init(wiki: Wiki, format: Format, io: Io): Promise<number> {
  const result = await wiki.init(await readTemplate(path.join(__dirname, '..', 'wiki-template')));
  if (format === 'json') io.out(JSON.stringify(result));
  else io.out(result.created ? `Created ${result.files.length} files in ${wiki.dir}` : `${wiki.dir} already exists; nothing was changed.`);
  return 0;
}

async function rebuild(wiki: Wiki, format: Format, io: Io): Promise<number> {
  // Say why before the rebuild refuses: a pages folder that leads out is never read, nor indexed as empty.
  if (format === 'text') for (const problem of await wikiErrors(wiki)) io.err(issueLine(problem));
  const { pages, changed } = await wiki.rebuildIndex();
  if (format === 'json') io.out(JSON.stringify({ pages: pages.length, changed }));
  else io.out(`Index rebuilt from ${pages.length} pages${changed ? '' : ' (already current)'}.`);
  return 0;
}

async function lint(wiki: Wiki, format: Format, io: Io, options: { fix: boolean; llm?: { model: string; maxPages: number; maxTokens: number; minAgeDays: number }; core(): Promise<LocalCore> }): Promise<number> {
  // TypeScript and the SDK load only for these flags.
  const extras = options.fix || options.llm ? await import('./lintExtras') : undefined;
  let fixed: Awaited<ReturnType<NonNullable<typeof extras>['fixLint']>> | undefined;
  let fixFailed = false;
  try {
    fixed = options.fix ? await extras!.fixLint(await options.core()) : undefined;
  } catch (error) {
    // The fixes were refused (a log that is a link, the wiki busy): the lint results are still worth showing.
    io.err(`repo-wiki: lint --fix: ${error instanceof WikiError ? error.userMessage : (error as Error).message}`);
    fixFailed = true;
  }
  const { pages, issues: deterministic } = await wiki.lint();
  const librarian = options.llm ? await extras!.librarianLint(await options.core(), options.llm, (line) => io.err(line)) : undefined;
  const issues = [...deterministic, ...(librarian?.findings ?? [])];
  const errors = issues.filter((issue) => issue.severity === 'error').length;
  if (format === 'json') {
    const llm = librarian && { pagesChecked: librarian.pagesChecked, pagesSkipped: librarian.pagesSkipped, pagesTooNew: librarian.pagesTooNew, usage: librarian.usage, budget: librarian.budget, dropped: librarian.dropped };
    io.out(JSON.stringify({ pagesChecked: pages.length, issues: issues.map(toJson), ...(fixed ? { fixed } : {}), ...(llm ? { librarian: llm } : {}) }, null, 2));
  } else {
    if (fixed) {
      for (const { slug, targets } of fixed.unlinked) io.out(`fixed  .wiki/pages/${slug}.md  unlinked deleted page${targets.length === 1 ? '' : 's'} ${targets.map((t) => `[[${t}]]`).join(', ')}`);
      for (const { slug, citations } of fixed.stale) io.out(`fixed  .wiki/pages/${slug}.md  marked stale: all ${citations} code citations are missing`);
      if (fixed.indexChanged) io.out('fixed  .wiki/index.json  rebuilt');
    }
    for (const issue of issues) io.out(issueLine(issue));
    io.out(`${pages.length} pages checked: ${errors} error${errors === 1 ? '' : 's'}, ${issues.length - errors} other issue${issues.length - errors === 1 ? '' : 's'}.`);
    if (librarian) {
      io.out(`Librarian: ${librarian.findings.length} findings in ${librarian.pagesChecked.length} pages, ${librarian.usage.inputTokens} of ${librarian.budget.maxTokens} input tokens${librarian.pagesSkipped.length ? `; ${librarian.pagesSkipped.length} pages left for the next run` : ''}${librarian.pagesTooNew.length ? `; ${librarian.pagesTooNew.length} pages updated in the last --min-age-days not checked` : ''}.`);
    }
  }
  return fixFailed ? 2 : errors ? 1 : 0;
}

async function drift(core: LocalCore, format: Format, options: { stamp: boolean; review: string[]; changedSince?: string; fix: boolean; diff: boolean }, io: Io): Promise<number> {
  const { wiki } = core;
  const { changedSince, checkDrift, citationDiffs } = await import('./drift');
  const stamp = options.stamp || options.review.length > 0;
  const scope: { changed?: string[]; candidates?: string[] } = options.changedSince === undefined ? {} : await changedSince(core, options.changedSince, stamp);
  const { changed } = scope;
  const { report, stamped, dropped, fixed, stampError } = await checkDrift(core, { ...options, ...scope });
  if (stampError) io.err(`repo-wiki: drift ${options.review.length ? '--review' : '--stamp'}: ${stampError.userMessage}`);
  // A pages folder that leads out means no page was checked: an error, never a green run.
  const problems = await wikiErrors(wiki);
  const errors = problems.length + report.issues.filter((issue) => issue.severity === 'error').length;
  const diffs = options.diff ? await citationDiffs(core, report.issues) : new Map<DriftIssue, string>();
  if (format === 'json') {
    const ordered = report.issues.map((issue) => {
      const { page, line, column, code, severity, message } = toJson(issue);
      return { page, line, column, citation: issue.data.citation, code, severity, message, ...(diffs.has(issue) ? { diff: diffs.get(issue) } : {}) };
    });
    io.out(JSON.stringify({ pagesChecked: report.pagesChecked, citationsChecked: report.citationsChecked, issues: ordered, ...(options.fix ? { fixed } : {}), ...(problems.length ? { problems: problems.map(toJson) } : {}) }, null, 2));
  } else if (format === 'github') {
    for (const issue of [...problems, ...report.issues]) {
      const { line, column } = toJson(issue);
      const level = issue.severity === 'error' ? 'error' : issue.severity === 'warning' ? 'warning' : 'notice';
      io.out(`::${level} file=${escapeProperty(issue.page)},line=${line},col=${column},title=${escapeProperty(`repo-wiki ${issue.code}`)}::${escapeData(issue.message)}`);
    }
  } else {
    for (const problem of problems) io.out(issueLine(problem));
    for (const issue of report.issues) {
      const { line, column } = toJson(issue);
      io.out(`${issue.page}:${line}:${column}  ${issue.severity.padEnd(7)}  ${issue.code}  ${issue.data.citation}  ${issue.message}`);
      const diff = diffs.get(issue);
      if (diff) io.out(diff.trimEnd().split('\n').map((text) => `    ${text}`).join('\n'));
    }
    if (stamp) io.out(`Stamped ${stamped} citation${stamped === 1 ? '' : 's'}.`);
    if (dropped) io.out(`Dropped ${dropped} anchor${dropped === 1 ? '' : 's'} of citations no longer on their pages.`);
    for (const line of fixed) io.out(`Updated ${line}`);
    if (changed) io.out(`Only the pages touched by the ${changed.length} file${changed.length === 1 ? '' : 's'} changed since ${options.changedSince}.`);
    io.out(`${report.citationsChecked} citations in ${report.pagesChecked} pages checked: ${errors} error${errors === 1 ? '' : 's'}, ${report.issues.length - errors} other issue${report.issues.length - errors === 1 ? '' : 's'}.`);
  }
  return stampError ? 2 : errors ? 1 : 0;
}

/** Errors of the wiki as a whole (a pages folder that leads out), which keep pages from being read at all. */
async function wikiErrors(wiki: Wiki): Promise<LintIssue[]> {
  return (await wiki.wikiProblems()).filter((problem) => problem.severity === 'error');
}

function issueLine(issue: LintIssue): string {
  const { line, column } = toJson(issue);
  return `${issue.page}:${line}:${column}  ${issue.severity.padEnd(7)}  ${issue.code}  ${issue.message}`;
}

async function query(core: LocalCore, question: string, format: Format, options: { offline: boolean; model: string }, io: Io): Promise<number> {
  if (!question.trim()) {
    io.err('Ask a question: repo-wiki query "How are errors handled?"');
    return 2;
  }
  const { queryWiki } = await import('./query');
  const { pageAges } = await import('./pageAges');
  const stream = format === 'text' ? io.write : undefined;
  const answer = await queryWiki(core.wiki, question, {
    ...options,
    tools: core.tools({ ages: (pages) => pageAges(core.wiki, pages) }),
    // A refused file (a link out, a FIFO) does not resolve: the citation is reported unverified.
    resolves: async (citation) => !!(await core.drift.locate(citation).catch(() => undefined)),
    onText: stream,
    // Steps go to stderr as they finish, so stdout holds the answer alone.
    onToolStep: format === 'text' ? (event) => event.step && io.err(`  ${event.step.ok ? '·' : '✗'} ${event.label}: ${event.step.summary}`) : undefined,
  });
  const unverified = answer.context.unverified ?? [];
  if (format === 'json') {
    io.out(JSON.stringify({
      answer: answer.text, offline: answer.context.offline, model: answer.model,
      pages: answer.retrieved.map((p) => ({ slug: p.slug, score: p.score })),
      steps: answer.steps.map((step) => ({ tool: step.tool, input: step.input, ok: step.ok })),
      unverified, usage: { inputTokens: answer.inputTokens, outputTokens: answer.outputTokens },
    }, null, 2));
  } else {
    if (!stream) io.out(answer.text);
    else io.out('');
    const pages = answer.retrieved.map((p) => `[[${p.slug}]] ${p.score}`).join(', ');
    if (unverified.length) io.out(`\nUnverified citations (not read, and not found in the code): ${unverified.join(', ')}`);
    io.out(`\nPages used: ${pages || 'none'} · ${answer.steps.length ? `${answer.steps.length} tool steps · ` : ''}${answer.context.offline ? 'offline answer' : answer.model}`);
  }
  return 0;
}

/** Every line the CLI prints goes through here: page titles, file names and model replies may carry escape sequences. */
function escapedIo(io: Io): Io {
  return {
    out: (text) => io.out(terminalSafe(text)),
    err: (text) => io.err(terminalSafe(text)),
    ...(io.write ? { write: (text: string) => io.write!(terminalSafe(text)) } : {}),
  };
}

// GitHub Actions workflow-command escaping.
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function toJson(issue: LintIssue) {
  return {
    page: issue.page,
    line: issue.range.start.line + 1,
    column: issue.range.start.character + 1,
    code: issue.code,
    severity: issue.severity,
    message: issue.message,
  };
}

if (require.main === module) {
  runCli(process.argv.slice(2), { out: (t) => console.log(t), err: (t) => console.error(t), write: (t) => process.stdout.write(t) }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // A bug, not a user error: still one escaped line, never a raw message with escape sequences.
      console.error(terminalSafe(`repo-wiki: ${error instanceof Error ? error.stack ?? error.message : String(error)}`));
      process.exitCode = 2;
    },
  );
}
