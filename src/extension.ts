import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DriftClient } from './adapters/drift/driftClient';
import { agentsFeature } from './vscode/agents/agentsFeature';
import { authoringFeature } from './vscode/authoring/authoringFeature';
import { extendMarkdownIt } from './vscode/authoring/markdownPreview';
import { chatFeature } from './vscode/chat/chatFeature';
import { commandsFeature } from './vscode/commands/commandsFeature';
import { driftFeature } from './vscode/drift/driftFeature';
import { generateFeature } from './vscode/generate/generateFeature';
import { graphFeature } from './vscode/graph/graphFeature';
import { walkthroughFeature } from './vscode/walkthrough/walkthroughFeature';
import { indexFeature } from './vscode/index/indexFeature';
import { ingestFeature } from './vscode/ingest/ingestFeature';
import { lintFeature } from './vscode/lint/lintFeature';
import { pagesFeature } from './vscode/pages/pagesFeature';
import { scmFeature } from './vscode/scm/scmFeature';
import { upkeepFeature } from './vscode/upkeep/upkeepFeature';
import { Models } from './vscode/models/models';
import { PageAges } from './vscode/services/pageAges';
import { proposalsFeature } from './vscode/proposals/proposalsFeature';
import { WikiProposals } from './vscode/services/wikiProposals';
import type { Feature, Services } from './vscode/services/services';
import { WikiSnapshots } from './vscode/services/wikiSnapshots';
import { CitationIndex } from './vscode/services/citationIndex';
import { DocumentSymbols } from './vscode/services/documentSymbols';
import { WorkspaceCores } from './vscode/services/workspaceCores';
import { WorkspaceWikis } from './vscode/services/workspaceWikis';

const features: Feature[] = [pagesFeature, lintFeature, indexFeature, driftFeature, commandsFeature, chatFeature, ingestFeature, generateFeature, scmFeature, agentsFeature, proposalsFeature, authoringFeature, graphFeature, walkthroughFeature, upkeepFeature];

export interface RepoWikiApi {
  /** For tests: the services the features share. */
  readonly services: Services;
  /** For tests: hooks some features return (e.g. `chat`). */
  readonly hooks: Record<string, unknown>;
  readonly activationMs: number;
  /** VS Code's markdown preview calls this (contributes."markdown.markdownItPlugins"). */
  readonly extendMarkdownIt: ReturnType<typeof extendMarkdownIt>;
}

export function activate(context: vscode.ExtensionContext): RepoWikiApi {
  const started = performance.now();
  const output = vscode.window.createOutputChannel('Repo Wiki', { log: true });
  const wikis = new WorkspaceWikis(output);
  const snapshots = new WikiSnapshots(wikis, output);
  let driftClient: Promise<DriftClient> | undefined;
  // Loaded on first use so TypeScript never loads at activation. Semantic mode (a whole program) only in a trusted workspace.
  const driftWorker = () => (driftClient ??= import('./adapters/drift/driftClient').then(({ DriftClient }) => {
    const semantic = vscode.workspace.isTrusted && vscode.workspace.getConfiguration('repoWiki.drift').get<boolean>('semantic', false);
    const client = new DriftClient(path.join(context.extensionPath, 'dist', 'driftWorker.js'), { semantic });
    context.subscriptions.push({ dispose: () => client.dispose() });
    return client;
  }));
  // A new mode needs a new worker: the next drift request starts it.
  const restartDriftWorker = () => {
    const stopping = driftClient;
    driftClient = undefined;
    void stopping?.then((client) => client.dispose());
  };
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => event.affectsConfiguration('repoWiki.drift.semantic') && restartDriftWorker()),
    vscode.workspace.onDidGrantWorkspaceTrust(restartDriftWorker),
  );
  const ages = new PageAges();
  const models = new Models(context.secrets);
  const cores = new WorkspaceCores({ wikis, snapshots, ages }, driftWorker);
  const proposals = new WikiProposals(cores);
  const documentSymbols = new DocumentSymbols({ wikis, cores });
  const services: Services = {
    wikis, cores, snapshots, output, ages, models, templateDir: path.join(context.extensionPath, 'wiki-template'),
    citations: new CitationIndex({ wikis, snapshots }), documentSymbols, proposals,
  };
  context.subscriptions.push(proposals, vscode.workspace.onDidCloseTextDocument((document) => documentSymbols.forget(document)));
  context.subscriptions.push(output, wikis, snapshots, ages, models, cores);
  const hooks = Object.assign({}, ...features.map((feature) => feature.activate(context, services) ?? {}));
  return { services, hooks, activationMs: performance.now() - started, extendMarkdownIt: extendMarkdownIt(services) };
}

export function deactivate(): void {}
