import * as vscode from 'vscode';
import { MODEL_DEFAULTS } from '../../core/defaults';
import type { LanguageModel } from '../../core/llm/languageModel';
import { loadLlmModule } from '../common/heavyModules';


/** The Claude model named by `repoWiki.llm.model`. */
export function modelName(): string {
  return vscode.workspace.getConfiguration('repoWiki.llm').get<string>('model') || MODEL_DEFAULTS.model;
}

/** The Messages API through the SDK (loaded now, not at activation), at `repoWiki.llm.baseUrl` if set. */
export function anthropicModel(apiKey: string): LanguageModel {
  const { AnthropicModel } = loadLlmModule();
  const baseURL = vscode.workspace.getConfiguration('repoWiki.llm').get<string>('baseUrl')?.trim() || undefined;
  return new AnthropicModel({ apiKey, baseURL });
}
