import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DriftClient } from './adapters/drift/driftClient';
import { agentsFeature } from './vscode/agents/agentsFeature';
import { authoringFeature } from './vscode/authoring/authoringFeature';
import { extendMarkdownIt } from './vscode/authoring/markdownPreview';
import { chatFeature } from './vscode/chat/chatView';
import { commandsFeature } from './vscode/commands/wikiCommands';
import { driftFeature } from './vscode/drift/driftFeature';
import { graphFeature } from './vscode/graph/graphPanel';
import { walkthroughFeature } from './vscode/walkthrough/walkthroughFeature';
import { indexFeature } from './vscode/index/indexFeature';
import { ingestFeature } from './vscode/ingest/ingestFeature';
import { librarianLintFeature } from './vscode/lint/librarianLint';
import { lintFeature } from './vscode/lint/lintDiagnostics';
import { pagesFeature } from './vscode/pages/pagesTree';
import { scmFeature } from './vscode/scm/wikiSourceControl';
import { upkeepFeature } from './vscode/upkeep/upkeepFeature';
import { Models } from './vscode/models/models';
import { PageAges } from './vscode/services/pageAges';
import { proposalsFeature } from './vscode/proposals/proposalsFeature';
import { WikiProposals } from './vscode/services/wikiProposals';
import type { Feature, Services } from './vscode/services/services';
import { WikiSnapshots } from './vscode/services/wikiSnapshots';
import { CitationIndex, DocumentSymbols } from './vscode/drift/citedBy';
import { WorkspaceTools } from './vscode/workspaceTools';
import { WorkspaceWikis } from './vscode/services/workspaceWikis';

const features: Feature[] = [pagesFeature, lintFeature, indexFeature, driftFeature, commandsFeature, chatFeature, ingestFeature, librarianLintFeature, scmFeature, agentsFeature, proposalsFeature, authoringFeature, graphFeature, walkthroughFeature, upkeepFeature];

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
  const shared = { wikis, snapshots, output, ages, models, templateDir: path.join(context.extensionPath, 'wiki-template'), driftWorker };
  const tools = new WorkspaceTools(shared);
  const proposals = new WikiProposals(shared);
  const documentSymbols = new DocumentSymbols(shared);
  const services: Services = { ...shared, proposals, citations: new CitationIndex(shared), documentSymbols, tools: (wiki) => tools.of(wiki) };
  context.subscriptions.push(proposals, vscode.workspace.onDidCloseTextDocument((document) => documentSymbols.forget(document)));
  context.subscriptions.push(output, wikis, snapshots, ages, models);
  const hooks = Object.assign({}, ...features.map((feature) => feature.activate(context, services) ?? {}));
  return { services, hooks, activationMs: performance.now() - started, extendMarkdownIt: extendMarkdownIt(services) };
}

export function deactivate(): void {}
