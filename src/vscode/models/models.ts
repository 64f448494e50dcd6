import * as vscode from 'vscode';
import type { ChatSettings } from '../../core/chat/chatService';
import { CHAT_DEFAULTS, MODEL_DEFAULTS } from '../../core/defaults';
import type { LanguageModel } from '../../core/llm/languageModel';
import { assembleChain, type MemberOffer } from '../../core/llm/modelChain';
import { configuredModel, parseModelRef, type ModelRef } from '../../core/llm/modelRef';
import type { ProviderSettings } from '../../core/llm/providerSettings';
import { loadLlmModule } from '../common/heavyModules';
import { ApiKeys } from './apiKey';
import { VsCodeLanguageModel } from './vscodeLanguageModel';

/** A model to use, or why there is none. */
export type ModelOffer = { model: LanguageModel; name: string } | { missing: 'no-key' | 'no-vscode-model' };

const ALL_FAILED = 'Retry later, or change the models with "Repo Wiki: Set up a model…" (settings repoWiki.llm.model and repoWiki.llm.fallbacks).';

/**
 * Which models answer: `repoWiki.llm.model` (`provider/model`), then `repoWiki.llm.fallbacks` in
 * order, each with its own key (SecretStorage, else the environment) and endpoint (user settings
 * only). One per window, shared by the chat, ingest, the librarian and @wiki.
 */
export class Models implements vscode.Disposable {
  readonly keys: ApiKeys;

  constructor(secrets: vscode.SecretStorage) {
    this.keys = new ApiKeys(secrets);
  }

  /** The model, then its fallbacks, as `provider/model`. */
  names(): string[] {
    const llm = vscode.workspace.getConfiguration('repoWiki.llm');
    const model = configuredModel({
      model: llm.get<string>('model'),
      modelIsSet: isSet(llm.inspect<string>('model')),
      legacyProvider: llm.get<string>('provider'),
      vscodeFamily: llm.get<string>('vscodeModelFamily'),
      defaultModel: MODEL_DEFAULTS.model,
    });
    const fallbacks = llm.get<unknown>('fallbacks');
    return [model, ...(Array.isArray(fallbacks) ? fallbacks.filter((name): name is string => typeof name === 'string' && !!name.trim()) : [])];
  }

  /** What the view calls the model before one answers. */
  label(): string {
    const [model, ...fallbacks] = this.names();
    return fallbacks.length ? `${model} (then ${fallbacks.join(', ')})` : model;
  }

  /** The chat's settings, for the chat view and @wiki alike. */
  chatSettings(): ChatSettings {
    const llm = vscode.workspace.getConfiguration('repoWiki.llm');
    const chat = vscode.workspace.getConfiguration('repoWiki.chat');
    return {
      model: this.names()[0],
      maxTokens: llm.get<number>('maxTokens') ?? MODEL_DEFAULTS.maxTokens,
      maxPriorTurns: chat.get<number>('maxPriorTurns') ?? CHAT_DEFAULTS.maxPriorTurns,
      priorAnswerChars: chat.get<number>('priorAnswerChars') ?? CHAT_DEFAULTS.priorAnswerChars,
      pagesPerTurn: chat.get<number>('pagesPerTurn') ?? CHAT_DEFAULTS.pagesPerTurn,
      maxToolRounds: chat.get<number>('maxToolRounds') ?? CHAT_DEFAULTS.maxToolRounds,
      toolTokenBudget: chat.get<number>('toolTokenBudget') ?? CHAT_DEFAULTS.toolTokenBudget,
    };
  }

  /** Keys and endpoints; the endpoints have application scope, so a repository's settings cannot move them. */
  async providerSettings(): Promise<ProviderSettings> {
    const llm = vscode.workspace.getConfiguration('repoWiki.llm');
    return {
      anthropic: { apiKey: await this.keys.get('anthropic'), baseUrl: llm.get<string>('baseUrl') },
      openai: { apiKey: await this.keys.get('openai'), baseUrl: llm.get<string>('openai.baseUrl') || process.env.OPENAI_BASE_URL },
      azure: { apiKey: await this.keys.get('azure'), endpoint: llm.get<string>('azure.endpoint') || process.env.AZURE_OPENAI_ENDPOINT, apiVersion: llm.get<string>('azure.apiVersion') || process.env.OPENAI_API_VERSION },
      ollama: { host: llm.get<string>('ollama.host') || process.env.OLLAMA_HOST },
      contextWindow: llm.get<number>('contextWindow') || undefined,
    };
  }

  /**
   * Whether some model of the chain can be had, without loading an SDK: a key (or, for an
   * OpenAI-compatible server, a base URL), Ollama, or a VS Code model. Unknown names count as none.
   */
  async available(): Promise<boolean> {
    const settings = await this.providerSettings();
    for (const name of this.names()) {
      let ref: ModelRef;
      try {
        ref = parseModelRef(name);
      } catch {
        continue; // choose() says what is wrong with it
      }
      if (ref.provider === 'ollama') return true;
      if (ref.provider === 'openai' && (settings.openai.apiKey || settings.openai.baseUrl)) return true;
      if ((ref.provider === 'anthropic' || ref.provider === 'azure') && settings[ref.provider].apiKey) return true;
      if (ref.provider === 'vscode' && (await vscode.lm.selectChatModels(ref.model ? { family: ref.model } : {})).length) return true;
    }
    return false;
  }

  /** The fallback chain of the models that can be had now. Throws for a model name with an unknown provider, or a bad endpoint. */
  async choose(): Promise<ModelOffer> {
    const settings = await this.providerSettings();
    const offer = await assembleChain({ models: this.names(), contextWindow: settings.contextWindow }, (ref) => this.member(ref, settings), { allFailed: ALL_FAILED });
    if ('model' in offer) return { model: offer.model, name: offer.name };
    return { missing: offer.missing.every((attempt) => attempt.model.startsWith('vscode/')) ? 'no-vscode-model' : 'no-key' };
  }

  private async member(ref: ModelRef, settings: ProviderSettings): Promise<MemberOffer> {
    if (ref.provider !== 'vscode') return loadLlmModule().providerAdapter(ref, settings);
    const [chat] = await vscode.lm.selectChatModels(ref.model ? { family: ref.model } : {});
    return chat ? { adapter: new VsCodeLanguageModel(chat) } : { missing: `VS Code offers no language model${ref.model ? ` of the family "${ref.model}"` : ''}: install or sign in to one, such as GitHub Copilot` };
  }

  /** Tells the user why `purpose` has no model, with the action that fixes it. */
  async explainMissing(missing: 'no-key' | 'no-vscode-model', purpose: string): Promise<void> {
    const why = missing === 'no-key'
      ? `${purpose} needs a model, and ${this.names().join(', ')} ${this.names().length === 1 ? 'has' : 'have'} no API key.`
      : `${purpose} uses a VS Code language model, and none is available. Install or sign in to one, such as GitHub Copilot, or use another provider.`;
    const choice = await vscode.window.showWarningMessage(why, 'Set up a model');
    if (choice) await vscode.commands.executeCommand('repoWiki.setUpModel');
  }

  dispose(): void {
    this.keys.dispose();
  }
}

function isSet(inspected: { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown } | undefined): boolean {
  return !!inspected && [inspected.globalValue, inspected.workspaceValue, inspected.workspaceFolderValue].some((value) => value !== undefined);
}
