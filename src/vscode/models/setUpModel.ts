import * as vscode from 'vscode';
import { MODEL_DEFAULTS } from '../../core/defaults';
import { PROVIDER_LABELS, type ProviderId } from '../../core/llm/modelRef';
import { checkEndpoint, checkOllamaHost } from '../../core/llm/providerSettings';
import { loadLlmModule } from '../common/heavyModules';
import type { Models } from './models';

const TITLE = 'Repo Wiki: Set up a model';
const SUGGESTED: Record<Exclude<ProviderId, 'ollama' | 'vscode'>, string> = { anthropic: MODEL_DEFAULTS.model.replace(/^anthropic\//, ''), openai: 'gpt-4.1', azure: '' };
const PROVIDER_DETAILS: Record<ProviderId, string> = {
  anthropic: 'Claude through the Anthropic API, with your API key.',
  openai: 'The OpenAI API, or any server that speaks it: LM Studio, vLLM, llama.cpp, OpenRouter, a LiteLLM proxy.',
  azure: 'A deployment of your Azure OpenAI resource.',
  ollama: 'A model on this machine (or your network): nothing leaves it.',
  vscode: 'A model VS Code offers, such as GitHub Copilot\'s. No key needed.',
};

/**
 * "Set up a model…": the provider, its endpoint (user settings), its key (SecretStorage) and the
 * model, then `repoWiki.llm.model` in user settings. For Ollama it lists the models the server has.
 * Returns the model set, or undefined when the user stopped.
 */
export async function setUpModel(models: Models, output: vscode.LogOutputChannel): Promise<string | undefined> {
  const picked = await vscode.window.showQuickPick(
    (Object.keys(PROVIDER_LABELS) as ProviderId[]).map((provider) => ({ label: PROVIDER_LABELS[provider], detail: PROVIDER_DETAILS[provider], provider })),
    { title: `${TITLE} (1/3): provider`, placeHolder: 'Which provider answers?', ignoreFocusOut: true },
  );
  if (!picked) return undefined;
  const provider = picked.provider;
  const llm = () => vscode.workspace.getConfiguration('repoWiki.llm');
  let model: string | undefined;
  switch (provider) {
    case 'anthropic':
      if (!(await endpoint('baseUrl', 'The Anthropic API\'s base URL; leave empty for the default endpoint.', ''))) return undefined;
      if (!(await models.keys.promptAndStore('anthropic'))) return undefined;
      model = await modelName('anthropic');
      break;
    case 'openai': {
      const baseUrl = await endpoint('openai.baseUrl', 'An OpenAI-compatible server\'s base URL (e.g. http://127.0.0.1:1234/v1 for LM Studio); leave empty for the OpenAI API.', '');
      if (baseUrl === undefined) return undefined;
      if (!(await models.keys.promptAndStore('openai', !!baseUrl))) return undefined;
      model = await modelName('openai');
      break;
    }
    case 'azure':
      if (!(await endpoint('azure.endpoint', 'Your Azure OpenAI endpoint, e.g. https://RESOURCE.openai.azure.com/', 'https://'))) return undefined;
      if (!(await apiVersion())) return undefined;
      if (!(await models.keys.promptAndStore('azure'))) return undefined;
      model = await modelName('azure');
      break;
    case 'ollama': {
      // Ollama's address may be written as OLLAMA_HOST is, host:port with no scheme.
      const host = await endpoint('ollama.host', 'Ollama\'s address; leave empty for http://127.0.0.1:11434 (or OLLAMA_HOST).', '', checkOllamaHost);
      if (host === undefined) return undefined;
      model = await ollamaModel(host || checkOllamaHost(process.env.OLLAMA_HOST ?? '', 'OLLAMA_HOST') || loadLlmModule().DEFAULT_OLLAMA_HOST, output);
      break;
    }
    case 'vscode':
      model = await vscodeModel();
      break;
  }
  if (model === undefined) return undefined;
  const name = `${provider}/${model}`;
  await llm().update('model', name, vscode.ConfigurationTarget.Global);
  void vscode.window.showInformationMessage(`Repo Wiki: answers now come from ${name}.${(llm().get<string[]>('fallbacks') ?? []).length ? ' Your fallbacks (repoWiki.llm.fallbacks) follow it.' : ' Add fallbacks in the setting repoWiki.llm.fallbacks.'}`);
  return name;
}

/** Asks for an endpoint and stores it in user settings (application scope); '' when left empty, undefined when cancelled. */
async function endpoint(setting: string, prompt: string, placeholder: string, check = checkEndpoint): Promise<string | undefined> {
  const llm = vscode.workspace.getConfiguration('repoWiki.llm');
  const value = await vscode.window.showInputBox({
    title: `${TITLE} (2/3): endpoint`,
    prompt,
    value: llm.get<string>(setting) ?? '',
    placeHolder: placeholder,
    ignoreFocusOut: true,
    validateInput: (text) => {
      try {
        check(text, 'The address');
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
  if (value === undefined) return undefined;
  const cleaned = check(value, 'The address') ?? '';
  await llm.update(setting, cleaned, vscode.ConfigurationTarget.Global);
  return cleaned;
}

async function apiVersion(): Promise<string | undefined> {
  const llm = vscode.workspace.getConfiguration('repoWiki.llm');
  const value = await vscode.window.showInputBox({
    title: `${TITLE} (2/3): api-version`, prompt: 'The Azure OpenAI api-version your resource supports.', value: llm.get<string>('azure.apiVersion') || '2024-10-21', ignoreFocusOut: true,
    validateInput: (text) => (/^\d{4}-\d{2}-\d{2}(-preview)?$/.test(text.trim()) ? undefined : 'An api-version looks like 2024-10-21 (or 2025-01-01-preview).'),
  });
  if (value === undefined) return undefined;
  await llm.update('azure.apiVersion', value.trim(), vscode.ConfigurationTarget.Global);
  return value.trim();
}

async function modelName(provider: 'anthropic' | 'openai' | 'azure'): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: `${TITLE} (3/3): ${provider === 'azure' ? 'deployment' : 'model'}`,
    prompt: provider === 'azure' ? 'The name of your deployment (not the model it runs).' : `The model, as ${PROVIDER_LABELS[provider]} names it.`,
    value: SUGGESTED[provider],
    ignoreFocusOut: true,
    validateInput: (text) => (text.trim() && !/\s/.test(text.trim()) ? undefined : 'A model name has no spaces and is not empty.'),
  });
  return value?.trim() || undefined;
}

/** The models the Ollama server has, to pick from; typed by hand when it cannot be reached. */
async function ollamaModel(host: string, output: vscode.LogOutputChannel): Promise<string | undefined> {
  let names: string[] = [];
  try {
    names = await loadLlmModule().listOllamaModels(host, AbortSignal.timeout(5000));
  } catch (error) {
    output.warn(`Could not list the models of Ollama at ${host}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (names.length) {
    const picked = await vscode.window.showQuickPick(names.map((name) => ({ label: name })), { title: `${TITLE} (3/3): model`, placeHolder: `The models Ollama at ${host} has`, ignoreFocusOut: true });
    return picked?.label;
  }
  const typed = await vscode.window.showInputBox({
    title: `${TITLE} (3/3): model`,
    prompt: `Ollama at ${host} could not be reached or has no models. Type a model you will pull (ollama pull NAME).`,
    value: 'qwen2.5-coder:7b',
    ignoreFocusOut: true,
    validateInput: (text) => (text.trim() && !/\s/.test(text.trim()) ? undefined : 'A model name has no spaces and is not empty.'),
  });
  return typed?.trim() || undefined;
}

async function vscodeModel(): Promise<string | undefined> {
  const available = await vscode.lm.selectChatModels({});
  if (!available.length) {
    void vscode.window.showWarningMessage('VS Code offers no language model yet. Install or sign in to one, such as GitHub Copilot, then set up again.');
    return undefined;
  }
  const families = [...new Map(available.map((chat) => [chat.family, chat])).values()];
  const picked = await vscode.window.showQuickPick(families.map((chat) => ({ label: chat.family, description: `${chat.name} (${chat.vendor})`, detail: `${chat.maxInputTokens} input tokens` })), { title: `${TITLE} (3/3): model`, ignoreFocusOut: true });
  return picked?.label;
}
