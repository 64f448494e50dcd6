import * as vscode from 'vscode';
import type { Services } from '../services/services';
import { command, initialise, newPage, rebuildIndex, commit, openLog } from './wikiCommands';

export const commandsFeature = {
  activate(context: vscode.ExtensionContext, services: Services): void {
    const commands: Record<string, [string, (s: Services) => Promise<unknown>]> = {
      'repoWiki.init': ['Initialise wiki', initialise],
      'repoWiki.newPage': ['New page', newPage],
      'repoWiki.rebuildIndex': ['Rebuild index', rebuildIndex],
      'repoWiki.commit': ['Commit wiki changes', commit],
      'repoWiki.openLog': ['Open log', openLog],
    };
    for (const [id, [name, run]] of Object.entries(commands)) {
      context.subscriptions.push(vscode.commands.registerCommand(id, command(services, name, () => run(services))));
    }
  },
};
