import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Services } from '../services/services';
import { registerLanguageModelTools } from './languageModelTools';
import { addMcpServerToWorkspace } from './mcpConfigCommand';
import { PARTICIPANT_ID, WikiParticipant } from './wikiParticipant';

export interface AgentHooks {
  participant: WikiParticipant;
}

/** The wiki in every agent: language model tools, `@wiki` in VS Code's chat, and the MCP server's entry. */
export const agentsFeature = {
  activate(context: vscode.ExtensionContext, services: Services): { agents: AgentHooks } {
    registerLanguageModelTools(context, services);
    const participant = new WikiParticipant(services);
    const chat = vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, chatContext, stream, token) => participant.handle(request, chatContext, stream, token));
    chat.iconPath = vscode.Uri.file(path.join(context.extensionPath, 'media', 'repo-wiki.svg'));
    context.subscriptions.push(chat, vscode.commands.registerCommand('repoWiki.addMcpServer', () => addMcpServerToWorkspace(services, context.extensionPath)));
    return { agents: { participant } };
  },
};
