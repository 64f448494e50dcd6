import * as vscode from 'vscode';
import type { LanguageModel } from '../core/llm';
import { loadLlmModule } from './heavyModules';

const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** The Claude model named by `repoWiki.llm.model`. */
export function modelName(): string {
  return vscode.workspace.getConfiguration('repoWiki.llm').get<string>('model') || DEFAULT_MODEL;
}

/** The Messages API through the SDK (loaded now, not at activation), at `repoWiki.llm.baseUrl` if set. */
export function anthropicModel(apiKey: string): LanguageModel {
  const { AnthropicModel } = loadLlmModule();
  const baseURL = vscode.workspace.getConfiguration('repoWiki.llm').get<string>('baseUrl')?.trim() || undefined;
  return new AnthropicModel({ apiKey, baseURL });
}
