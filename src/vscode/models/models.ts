import * as vscode from 'vscode';
import type { ChatSettings } from '../../core/chat/chatService';
import { CHAT_DEFAULTS, MODEL_DEFAULTS } from '../../core/defaults';
import type { LanguageModel } from '../../core/llm/languageModel';
import { anthropicModel, modelName } from './anthropic';
import { ApiKeys } from './apiKey';
import { VsCodeLanguageModel } from './vscodeLanguageModel';

export type ModelProvider = 'anthropic' | 'vscode';

/** A model to use, or why there is none. */
export type ModelOffer = { model: LanguageModel; name: string } | { missing: 'no-key' | 'no-vscode-model' };

/**
 * Which model answers, per `repoWiki.llm.provider`: Claude through the Anthropic API with the
 * user's key (the default), or a model VS Code offers (e.g. Copilot's), which needs no key.
 * One per window, shared by the chat, ingest, the librarian and @wiki.
 */
export class Models implements vscode.Disposable {
  readonly keys: ApiKeys;

  constructor(secrets: vscode.SecretStorage) {
    this.keys = new ApiKeys(secrets);
  }

  provider(): ModelProvider {
    return vscode.workspace.getConfiguration('repoWiki.llm').get<string>('provider') === 'vscode' ? 'vscode' : 'anthropic';
  }

  /** What the view calls the model before one answers. */
  label(): string {
    return this.provider() === 'vscode' ? 'a VS Code language model' : modelName();
  }

  /** The chat's settings, for the chat view and @wiki alike. */
  chatSettings(): ChatSettings {
    const llm = vscode.workspace.getConfiguration('repoWiki.llm');
    const chat = vscode.workspace.getConfiguration('repoWiki.chat');
    return {
      model: modelName(),
      maxTokens: llm.get<number>('maxTokens') ?? MODEL_DEFAULTS.maxTokens,
      maxPriorTurns: chat.get<number>('maxPriorTurns') ?? CHAT_DEFAULTS.maxPriorTurns,
      priorAnswerChars: chat.get<number>('priorAnswerChars') ?? CHAT_DEFAULTS.priorAnswerChars,
      pagesPerTurn: chat.get<number>('pagesPerTurn') ?? CHAT_DEFAULTS.pagesPerTurn,
      maxToolRounds: chat.get<number>('maxToolRounds') ?? CHAT_DEFAULTS.maxToolRounds,
      toolTokenBudget: chat.get<number>('toolTokenBudget') ?? CHAT_DEFAULTS.toolTokenBudget,
    };
  }

  async choose(): Promise<ModelOffer> {
    if (this.provider() === 'vscode') {
      const family = vscode.workspace.getConfiguration('repoWiki.llm').get<string>('vscodeModelFamily')?.trim();
      const [chat] = await vscode.lm.selectChatModels(family ? { family } : {});
      if (!chat) return { missing: 'no-vscode-model' };
      const model = new VsCodeLanguageModel(chat);
      return { model, name: model.name };
    }
    const apiKey = await this.keys.get();
    return apiKey ? { model: anthropicModel(apiKey), name: modelName() } : { missing: 'no-key' };
  }

  /** Tells the user why `purpose` has no model, with the action that fixes it. */
  async explainMissing(missing: 'no-key' | 'no-vscode-model', purpose: string): Promise<void> {
    if (missing === 'no-key') {
      const choice = await vscode.window.showWarningMessage(`${purpose} needs a model: set an Anthropic API key, or use a VS Code language model (setting repoWiki.llm.provider).`, 'Set API key', 'Use VS Code models');
      if (choice === 'Set API key') await vscode.commands.executeCommand('repoWiki.setApiKey');
      if (choice === 'Use VS Code models') await vscode.workspace.getConfiguration('repoWiki.llm').update('provider', 'vscode', vscode.ConfigurationTarget.Global);
      return;
    }
    const choice = await vscode.window.showWarningMessage(`${purpose} uses a VS Code language model (repoWiki.llm.provider is "vscode"), and none is available. Install or sign in to one, such as GitHub Copilot, or use the Anthropic API.`, 'Use the Anthropic API');
    if (choice) await vscode.workspace.getConfiguration('repoWiki.llm').update('provider', 'anthropic', vscode.ConfigurationTarget.Global);
  }

  dispose(): void {
    this.keys.dispose();
  }
}
