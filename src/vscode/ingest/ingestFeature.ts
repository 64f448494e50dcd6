import * as vscode from 'vscode';
import { isFileAccessError, isNotAFile } from '../../core/errors';
import { planIngest, PlanRejectedError, type IngestSource } from '../../core/ingest/ingest';
import { INGEST_DEFAULTS, toSource } from '../../core/ingest/sources';
import { isLlmError } from '../../core/llm/languageModel';
import type { FileSystem } from '../../core/ports';
import type { Wiki } from '../../core/wiki/wiki';
import { loadGitModule } from '../common/heavyModules';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';
import { registerPlanReview, reviewAndApply, setChangeChooser } from './planReview';
import { failedModelsField } from '../../core/llm/fallbackChain';

/** What integration tests reach through the extension's API. */
export interface IngestHooks {
  setChangeChooser: typeof setChangeChooser;
  /** What the notification's Cancel button does, for every running ingest. */
  cancelAll(): void;
}

const running = new Set<AbortController>();

const ACTION = 'Ingest';

/** "Ingest file(s)", "Ingest selection" and "Ingest folder": the librarian folds sources into pages. */
export const ingestFeature = {
  activate(context: vscode.ExtensionContext, services: Services): { ingest: IngestHooks } {
    registerPlanReview(context);
    const run = (gather: () => Promise<Gathered | undefined>) => ingest(services, gather);
    context.subscriptions.push(
      vscode.commands.registerCommand('repoWiki.ingestFiles', (uri?: vscode.Uri, selected?: vscode.Uri[]) =>
        run(() => gatherFiles(services, selected?.length ? selected : uri ? [uri] : undefined))),
      vscode.commands.registerCommand('repoWiki.ingestSelection', () => run(() => gatherSelection(services))),
      vscode.commands.registerCommand('repoWiki.ingestFolder', (uri?: vscode.Uri, options?: { glob?: string }) =>
        run(() => gatherFolder(services, uri, options?.glob))),
    );
    return { ingest: { setChangeChooser, cancelAll: () => running.forEach((controller) => controller.abort()) } };
  },
};

interface Gathered {
  wiki: Wiki;
  sources: IngestSource[];
  skipped: string[];
}

async function ingest(services: Services, gather: () => Promise<Gathered | undefined>, force = false): Promise<{ pages: string[]; unchanged?: string[] } | undefined> {
  if (!ensureTrusted(ACTION)) return undefined;
  let gathered: Gathered | undefined;
  try {
    gathered = await gather();
  } catch (error) {
    showError(services.output, ACTION, error);
    return undefined;
  }
  if (!gathered) return undefined;
  const { wiki, sources, skipped } = gathered;
  for (const reason of skipped) services.output.info(`Ingest: skipped ${reason}.`);
  if (!sources.length) {
    void vscode.window.showWarningMessage(`Repo Wiki: nothing to ingest${skipped.length ? `: ${skipped[0]}` : ''}.`);
    return undefined;
  }
  const offer = await services.models.choose();
  if ('missing' in offer) {
    await services.models.explainMissing(offer.missing, 'Ingest (the librarian writes the pages)');
    return undefined;
  }
  const settings = vscode.workspace.getConfiguration('repoWiki.ingest');
  const { model } = offer;
  const label = sources.length === 1 ? sources[0].path : `${sources.length} files`;
  const controller = new AbortController();
  running.add(controller);
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Repo Wiki: ingesting ${label}`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => controller.abort());
        let done = 0;
        return planIngest(
          {
            wiki,
            model,
            resolver: services.cores.of(wiki).drift,
            settings: {
              model: services.models.names()[0],
              maxTokens: settings.get<number>('maxOutputTokens') ?? INGEST_DEFAULTS.maxOutputTokens,
              chunkTokens: settings.get<number>('chunkTokens') ?? INGEST_DEFAULTS.chunkTokens,
            },
            today: new Date().toISOString().slice(0, 10),
            ages: await services.ages.tags(wiki, (await services.snapshots.get(wiki)).pages).catch((error: Error) => void services.output.info(`Page ages unknown: ${error.message}`)),
            force,
            previousText: (hash) => new (loadGitModule().SimpleGitWiki)(wiki.root).blobText(hash),
          },
          sources,
          controller.signal,
          {
            onChunk: ({ source, sources: total, chunk }) => {
              const part = chunk.parts > 1 ? ` (part ${chunk.part} of ${chunk.parts})` : '';
              const increment = (100 / total) / chunk.parts;
              progress.report({ message: `${source + 1}/${total}: ${chunk.path}${part}`, increment: done++ ? increment : 0 });
            },
            onRetry: ({ delayMs, status }) => progress.report({ message: `the API is busy (${status || 'no connection'}); retrying in ${Math.ceil(delayMs / 1000)} s` }),
          },
        );
      },
    );
    for (const { path, since } of result.unchanged) services.output.info(`Ingest: skipped ${path}, unchanged since its last ingest on ${since.slice(0, 10)}.`);
    if (!result.sources.length) {
      offerReingest(result.unchanged, () => ingest(services, () => Promise.resolve(gathered), true));
      return { pages: [], unchanged: result.unchanged.map((source) => source.path) };
    }
    services.output.info(`Ingest of ${result.sources.join(', ')}: ${result.usage.requests} request(s), ${result.usage.inputTokens} input + ${result.usage.outputTokens} output tokens (${result.model}).`);
    const applied = await reviewAndApply(services, wiki, result, {
      title: `Ingest ${label}`,
      log: { op: 'ingest', sources: result.sources, hashes: result.hashes, model: result.model, ...failedModelsField(result.attempts), tokens: { input: result.usage.inputTokens, output: result.usage.outputTokens }, requests: result.usage.requests },
    });
    return applied && { pages: [...applied.created, ...applied.updated, ...applied.corroborated, ...applied.linked] };
  } catch (error) {
    reportFailure(services, error);
    return undefined;
  } finally {
    running.delete(controller);
  }
}

/** Every source was skipped as unchanged: say so, and offer to ingest it anyway. */
function offerReingest(unchanged: readonly { path: string; since: string }[], reingest: () => Promise<unknown>): void {
  const what = unchanged.length === 1 ? `${unchanged[0].path} is unchanged since its last ingest on ${unchanged[0].since.slice(0, 10)}` : `All ${unchanged.length} files are unchanged since their last ingest`;
  void vscode.window.showInformationMessage(`Repo Wiki: ${what}, so nothing was sent to the model.`, 'Re-ingest anyway').then((choice) => {
    if (choice) void reingest();
  });
}

function reportFailure(services: Services, error: unknown): void {
  if (error instanceof PlanRejectedError) {
    for (const [i, reply] of error.replies.entries()) services.output.warn(`Ingest: raw reply ${i + 1} of ${error.replies.length}:\n${reply}`);
    for (const problem of error.problems) services.output.warn(`Ingest: ${problem.path}: ${problem.message}`);
    void vscode.window.showErrorMessage(`Ingest failed: ${error.message} The raw reply is in the Repo Wiki output channel. ${error.hint}`, 'Show Raw Reply').then((choice) => choice && services.output.show());
    return;
  }
  if (isLlmError(error)) {
    if (error.kind === 'cancelled') {
      void vscode.window.showInformationMessage('Ingest cancelled; nothing was written.');
      return;
    }
    services.output.warn(`Ingest: ${error.message}`);
    const action = error.kind === 'auth' ? 'Set up a model' : undefined;
    void vscode.window.showErrorMessage(`Ingest failed: ${error.message}`, ...(action ? [action] : []))
      .then((choice) => choice && vscode.commands.executeCommand('repoWiki.setUpModel'));
    return;
  }
  showError(services.output, ACTION, error);
}

function settings() {
  const config = vscode.workspace.getConfiguration('repoWiki.ingest');
  return {
    maxFileBytes: (config.get<number>('maxFileKB') ?? INGEST_DEFAULTS.maxFileBytes / 1024) * 1024,
    maxFiles: config.get<number>('maxFiles') ?? INGEST_DEFAULTS.maxFiles,
    glob: config.get<string>('folderGlob') || INGEST_DEFAULTS.glob,
  };
}

/** The wiki of the folder that holds `uri`; sources must come from that folder. */
async function wikiFor(services: Services, uri: vscode.Uri): Promise<Wiki> {
  const wiki = services.wikis.forUri(uri);
  if (!wiki) throw new Error(`${uri.fsPath} is not inside a workspace folder. Open its folder first.`);
  if (!(await wiki.exists())) throw new Error(`${wiki.root} has no wiki yet. Run "Repo Wiki: Initialise wiki in this workspace" first.`);
  return wiki;
}

async function readSources(files: FileSystem, wiki: Wiki, uris: readonly vscode.Uri[], maxBytes: number): Promise<Gathered> {
  const sources: IngestSource[] = [];
  const skipped: string[] = [];
  for (const uri of uris) {
    const relPath = wiki.relative(uri.fsPath);
    let bytes: Uint8Array;
    try {
      // The guarded read: a FIFO, a device or a link out is refused without blocking the extension host.
      bytes = await files.readFile(uri.fsPath, { maxBytes });
    } catch (error) {
      if (isFileAccessError(error)) skipped.push(error.reason === 'too-large' ? `${error.message} (repoWiki.ingest.maxFileKB)` : error.message);
      else if (isNotAFile(error)) skipped.push(`${relPath} (${(error as NodeJS.ErrnoException).code === 'EISDIR' ? 'a folder: use "Ingest folder"' : 'not found'})`);
      else throw error;
      continue;
    }
    const source = toSource(relPath, bytes, maxBytes);
    if ('skipped' in source) skipped.push(source.skipped);
    else sources.push(source);
  }
  return { wiki, sources, skipped };
}

async function gatherFiles(services: Services, uris: readonly vscode.Uri[] | undefined): Promise<Gathered | undefined> {
  let chosen = uris;
  // From the palette: the file in the active editor, else ask for files.
  const active = vscode.window.activeTextEditor?.document.uri;
  if (!chosen?.length && active?.scheme === 'file' && services.wikis.forUri(active) && !services.wikis.forUri(active)!.relative(active.fsPath).startsWith('.wiki/')) chosen = [active];
  if (!chosen?.length) {
    chosen = await vscode.window.showOpenDialog({ canSelectMany: true, openLabel: 'Ingest', title: 'Repo Wiki: files to ingest into the wiki', defaultUri: active });
    if (!chosen?.length) return undefined;
  }
  const wiki = await wikiFor(services, chosen[0]);
  const foreign = chosen.filter((uri) => services.wikis.forUri(uri)?.root !== wiki.root);
  const gathered = await readSources(services.wikis.filesOf(wiki), wiki, chosen.filter((uri) => !foreign.includes(uri)), settings().maxFileBytes);
  gathered.skipped.push(...foreign.map((uri) => `${uri.fsPath} (another workspace folder; ingest it from there)`));
  return gathered;
}

async function gatherSelection(services: Services): Promise<Gathered | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) {
    void vscode.window.showInformationMessage('Select the text to ingest in an editor first.');
    return undefined;
  }
  const wiki = await wikiFor(services, editor.document.uri);
  const { start, end } = editor.selection;
  const text = editor.document.getText(editor.selection);
  const range = { startLine: start.line + 1, endLine: end.character === 0 && end.line > start.line ? end.line : end.line + 1 };
  const source = toSource(wiki.relative(editor.document.uri.fsPath), new TextEncoder().encode(text), settings().maxFileBytes, range);
  return 'skipped' in source ? { wiki, sources: [], skipped: [source.skipped] } : { wiki, sources: [source], skipped: [] };
}

async function gatherFolder(services: Services, uri: vscode.Uri | undefined, glob: string | undefined): Promise<Gathered | undefined> {
  let folder = uri;
  if (!folder) {
    folder = (await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: 'Ingest folder', title: 'Repo Wiki: folder to ingest' }))?.[0];
    if (!folder) return undefined;
  }
  const wiki = await wikiFor(services, folder);
  const { maxFiles, maxFileBytes } = settings();
  const pattern = glob ?? (await vscode.window.showInputBox({
    title: `Repo Wiki: ingest ${wiki.relative(folder.fsPath) || 'the workspace folder'}`,
    prompt: `Files to ingest (a glob relative to the folder). At most ${maxFiles} files of up to ${Math.round(maxFileBytes / 1024)} KB each.`,
    value: settings().glob,
    ignoreFocusOut: true,
  }));
  if (!pattern) return undefined;
  const found = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, pattern), INGEST_DEFAULTS.exclude, maxFiles + 1);
  found.sort((a, b) => a.fsPath.localeCompare(b.fsPath));
  const gathered = await readSources(services.wikis.filesOf(wiki), wiki, found.slice(0, maxFiles), maxFileBytes);
  if (found.length > maxFiles) {
    gathered.skipped.push(`files beyond the first ${maxFiles} (repoWiki.ingest.maxFiles)`);
    void vscode.window.showWarningMessage(`Repo Wiki: the folder has more than ${maxFiles} matching files; only the first ${maxFiles} are ingested.`);
  }
  return gathered;
}
