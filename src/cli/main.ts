import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { NodeFileSystem } from '../adapters/nodeFileSystem';
import { WikiError } from '../core/errors';
import type { LintIssue } from '../core/model';
import { Wiki } from '../core/wiki';

const USAGE = `Usage: repo-wiki <command> [--workspace DIR] [--format text|json]

Commands:
  init            create .wiki/ in the workspace (never overwrites an existing wiki)
  index rebuild   regenerate .wiki/index.json and .wiki/index.md from the pages
  lint            check pages; exits 1 when any error is found

Options:
  --workspace DIR  the workspace folder (default: the current directory)
  --format FORMAT  text (default) or json
  -h, --help       show this help`;

type Format = 'text' | 'json';

interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** Runs one CLI invocation and returns its exit code: 0 ok, 1 lint errors, 2 usage or failure. */
export async function runCli(argv: string[], io: Io, cwd = process.cwd()): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { workspace: { type: 'string' }, format: { type: 'string', default: 'text' }, help: { type: 'boolean', short: 'h' } },
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
  const format = values.format as Format;
  if (format !== 'text' && format !== 'json') {
    io.err(`--format must be text or json, not "${values.format}".`);
    return 2;
  }
  const wiki = new Wiki(path.resolve(cwd, values.workspace ?? '.'), new NodeFileSystem(), { now: () => new Date() });
  const command = positionals.join(' ');
  try {
    if (command === 'init') return await init(wiki, format, io);
    if (command !== 'index rebuild' && command !== 'lint') {
      io.err(`Unknown command "${command}".\n\n${USAGE}`);
      return 2;
    }
    if (!(await wiki.exists())) {
      throw new WikiError('no-wiki', `There is no .wiki/ folder in ${wiki.root}.`, 'Run "repo-wiki init" first, or pass --workspace.');
    }
    return command === 'lint' ? await lint(wiki, format, io) : await rebuild(wiki, format, io);
  } catch (error) {
    io.err(`repo-wiki: ${error instanceof WikiError ? error.userMessage : (error as Error).message}`);
    return 2;
  }
}

async function init(wiki: Wiki, format: Format, io: Io): Promise<number> {
  const result = await wiki.init(path.join(__dirname, '..', 'wiki-template'));
  if (format === 'json') io.out(JSON.stringify(result));
  else io.out(result.created ? `Created ${result.files.length} files in ${wiki.dir}` : `${wiki.dir} already exists; nothing was changed.`);
  return 0;
}

async function rebuild(wiki: Wiki, format: Format, io: Io): Promise<number> {
  const { pages, changed } = await wiki.rebuildIndex();
  if (format === 'json') io.out(JSON.stringify({ pages: pages.length, changed }));
  else io.out(`Index rebuilt from ${pages.length} pages${changed ? '' : ' (already current)'}.`);
  return 0;
}

async function lint(wiki: Wiki, format: Format, io: Io): Promise<number> {
  const { pages, issues } = await wiki.lint();
  const errors = issues.filter((issue) => issue.severity === 'error').length;
  if (format === 'json') {
    io.out(JSON.stringify({ pagesChecked: pages.length, issues: issues.map(toJson) }, null, 2));
  } else {
    for (const issue of issues) {
      const { line, column } = toJson(issue);
      io.out(`${issue.page}:${line}:${column}  ${issue.severity.padEnd(7)}  ${issue.code}  ${issue.message}`);
    }
    io.out(`${pages.length} pages checked: ${errors} error${errors === 1 ? '' : 's'}, ${issues.length - errors} other issue${issues.length - errors === 1 ? '' : 's'}.`);
  }
  return errors ? 1 : 0;
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
  runCli(process.argv.slice(2), { out: (t) => console.log(t), err: (t) => console.error(t) }).then((code) => {
    process.exitCode = code;
  });
}
