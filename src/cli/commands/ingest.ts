import { promises as fsp, type Stats } from 'node:fs';
import * as path from 'node:path';
import { isFileAccessError, isNotAFile, WikiError } from '../../core/errors';
import { applyChanges } from '../../core/ingest/apply';
import type { IngestPlanResult, IngestSource } from '../../core/ingest/ingest';
import { INGEST_DEFAULTS, toSource } from '../../core/ingest/sources';
import { isLlmError } from '../../core/llm/languageModel';
import type { LocalCore } from '../../adapters/localCore';
import type { CliCommand } from '../command';
import { confirm } from '../confirm';
import { describeFileError } from '../fileErrors';
import type { Io } from '../io';
import { missingModels, MODEL_ENVIRONMENT, modelFromEnv, type ModelFlags } from '../model';
import { MODEL_OPTIONS } from '../options';
import { pageAges } from '../pageAges';
import { failedModelsField } from '../../core/llm/fallbackChain';
import { answeredBy } from '../../shared/answeredBy';

/** `repo-wiki ingest PATH...`: the librarian folds files into pages; see `ingestCommand`. */
export const ingest: CliCommand = {
  name: 'ingest',
  summary: 'the librarian folds files (or whole folders) into pages',
  description: `It prints the plan, then writes it after a yes on a terminal, or with --yes. It needs ${MODEL_ENVIRONMENT}.`,
  usage: 'PATH...',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [
    { name: 'yes', description: 'apply the plan without asking' },
    { name: 'dry-run', description: 'print the plan and write nothing' },
    { name: 'force', description: 'ingest sources again even when unchanged since their last successful ingest (which are otherwise skipped before any model call)' },
    ...MODEL_OPTIONS,
  ],
  async run({ positionals, format, flag, value, values, core, cwd }, io) {
    const options = { models: { model: value('model'), fallbacks: values('fallback') }, yes: flag('yes'), dryRun: flag('dry-run'), json: format === 'json', force: flag('force') };
    return ingestCommand(await core(), positionals, options, io, cwd);
  },
};

export interface IngestCliOptions {
  models: ModelFlags;
  yes: boolean;
  dryRun: boolean;
  json: boolean;
  /** Ingest sources again even when unchanged since their last ingest. */
  force: boolean;
}

const SKIPPED_DIRS = new Set(['node_modules', '.git', '.wiki', 'dist', 'out', 'build', 'coverage']);
const INGESTIBLE = /\.(md|mdx|txt|ts|tsx|mts|cts|js|jsx|mjs|cjs|json|ya?ml|toml)$/i;

/**
 * `repo-wiki ingest PATH...`: plans with the model, prints the changes, and writes them only with
 * --yes or after a yes on a terminal. Exit 0 on success (or nothing to do), 2 on failure.
 */
export async function ingestCommand(core: LocalCore, paths: readonly string[], options: IngestCliOptions, io: Io, cwd: string): Promise<number> {
  const { wiki } = core;
  if (!paths.length) {
    io.err('repo-wiki ingest: name at least one file or folder to ingest.');
    return 2;
  }
  const offer = await modelFromEnv(options.models);
  if ('missing' in offer) {
    io.err(`repo-wiki ingest: the librarian needs a model (${missingModels(offer)}). Set ${MODEL_ENVIRONMENT}, then run it again.`);
    return 2;
  }
  const model = offer.model;
  const { sources, skipped } = await collectSources(core, paths, cwd);
  for (const reason of skipped) io.err(`skipped ${reason}`);
  if (!sources.length) {
    io.err('repo-wiki ingest: nothing to ingest.');
    return 2;
  }
  // The planner (retrieval, the prompts) loads once there is something to plan.
  const { planIngest, PlanRejectedError } = await import('../../core/ingest/ingest');
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  let result: IngestPlanResult;
  try {
    result = await planIngest(
      {
        wiki,
        model,
        resolver: core.drift,
        settings: { model: offer.name, maxTokens: INGEST_DEFAULTS.maxOutputTokens, chunkTokens: INGEST_DEFAULTS.chunkTokens },
        today: new Date().toISOString().slice(0, 10),
        ages: await pageAges(wiki, await wiki.loadPages()),
        force: options.force,
        previousText: async (hash) => new (require('../../adapters/git/gitWiki') as typeof import('../../adapters/git/gitWiki')).SimpleGitWiki(wiki.root).blobText(hash),
      },
      sources,
      controller.signal,
      {
        onChunk: ({ source, sources: total, chunk }) => io.err(`ingesting ${source + 1}/${total}: ${chunk.path}${chunk.parts > 1 ? ` (part ${chunk.part} of ${chunk.parts})` : ''}`),
        onRetry: ({ delayMs, status }) => io.err(`the API is busy (${status || 'no connection'}); retrying in ${Math.ceil(delayMs / 1000)} s`),
      },
    );
  } catch (error) {
    if (error instanceof PlanRejectedError) {
      for (const problem of error.problems) io.err(`  ${problem.path}: ${problem.message}`);
      for (const [i, reply] of error.replies.entries()) io.err(`--- raw reply ${i + 1} of ${error.replies.length} ---\n${reply}`);
      throw new WikiError(error.code, `${error.message} The raw reply was printed to stderr above.`, error.hint);
    }
    if (isLlmError(error) && error.kind === 'cancelled') {
      io.err('repo-wiki ingest: cancelled; nothing was written.');
      return 130;
    }
    throw error;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
  for (const { path: skippedPath, since } of result.unchanged) io.err(`skipped ${skippedPath}: unchanged since its last ingest on ${since.slice(0, 10)} (--force ingests it again)`);
  if (!result.sources.length) {
    if (options.json) printPlan(result, true, io);
    else io.out('Nothing to ingest: every source is unchanged since its last ingest. Pass --force to ingest it again.');
    return 0;
  }
  const log = { op: 'ingest', sources: result.sources, hashes: result.hashes, model: result.model, ...failedModelsField(result.attempts), tokens: { input: result.usage.inputTokens, output: result.usage.outputTokens }, requests: result.usage.requests };
  printPlan(result, options.json, io);
  if (options.dryRun) return 0;
  if (result.changes.length && !options.yes && !(await confirm(`Apply ${result.changes.length} change(s) to ${wiki.dir}? [y/N] `))) {
    io.err(process.stdin.isTTY ? 'Not applied.' : 'Not applied: pass --yes to write these changes without a terminal.');
    return 0;
  }
  const applied = await applyChanges(wiki, result.changes, log);
  if (!options.json) io.out(`Applied: ${applied.created.length} created, ${applied.updated.length} updated, ${applied.corroborated.length} corroborated, ${applied.linked.length} linked.`);
  return 0;
}

function printPlan(result: IngestPlanResult, json: boolean, io: Io): void {
  if (json) {
    const changes = result.changes.map(({ slug, kind, title, detail, after }) => ({ slug, kind, title, detail, text: after }));
    io.out(JSON.stringify({ sources: result.sources, unchanged: result.unchanged, changes, notes: result.notes, usage: result.usage, model: result.model }, null, 2));
    return;
  }
  for (const change of result.changes) io.out(`${change.kind.padEnd(11)} .wiki/pages/${change.slug}.md  ${change.detail}`);
  for (const note of result.notes) io.out(`note        ${note}`);
  if (!result.changes.length) io.out('The wiki already holds what these sources say; nothing to change.');
  io.out(`${result.usage.requests} request(s), ${result.usage.inputTokens} input and ${result.usage.outputTokens} output tokens (${answeredBy(result.model, result.attempts)}).`);
}

/** Files named, and ingestible files under folders named, within the caps; the rest with a reason. */
async function collectSources({ wiki, files: reader }: LocalCore, paths: readonly string[], cwd: string): Promise<{ sources: IngestSource[]; skipped: string[] }> {
  const files: string[] = [];
  const skipped: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    // Directory entries are not followed through links: a folder walk stays in the tree it was given.
    for (const entry of (await fsp.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(full);
      } else if (entry.isFile() && INGESTIBLE.test(entry.name)) files.push(full);
    }
  };
  for (const given of paths) {
    // Relative to the workspace folder (sources must be inside it), else to the current directory.
    let absolute = path.resolve(wiki.root, given);
    let found = await probe(absolute);
    if (found === 'missing' && !path.isAbsolute(given)) {
      absolute = path.resolve(cwd, given);
      found = await probe(absolute);
    }
    if (found === 'missing') skipped.push(`${given} (not found)`);
    else if ('error' in found) skipped.push(`${given} (cannot read: ${describeFileError(found.error)})`);
    else if (found.stat.isDirectory()) await walk(absolute);
    else files.push(absolute); // a FIFO or a device too: the guarded read below refuses it without blocking
  }
  const sources: IngestSource[] = [];
  for (const [i, file] of files.entries()) {
    if (i >= INGEST_DEFAULTS.maxFiles) {
      skipped.push(`${files.length - i} more files (at most ${INGEST_DEFAULTS.maxFiles} per ingest)`);
      break;
    }
    const relPath = wiki.relative(file);
    let bytes: Uint8Array;
    try {
      bytes = await reader.readFile(file, { maxBytes: INGEST_DEFAULTS.maxFileBytes });
    } catch (error) {
      if (isFileAccessError(error)) skipped.push(error.message);
      else if (isNotAFile(error)) skipped.push(`${relPath} (not found)`);
      else throw error;
      continue;
    }
    const source = toSource(relPath, bytes, INGEST_DEFAULTS.maxFileBytes);
    if ('skipped' in source) skipped.push(source.skipped);
    else sources.push(source);
  }
  return { sources, skipped };
}

/** What is at a path named to ingest: only a path that does not exist is missing; any other failure (permission denied, a loop of links) is kept to be reported as it is. */
async function probe(file: string): Promise<{ stat: Stats } | { error: unknown } | 'missing'> {
  try {
    return { stat: await fsp.stat(file) };
  } catch (error) {
    return isNotAFile(error) ? 'missing' : { error };
  }
}
