import type { MemberOffer } from '../../core/llm/modelChain';
import type { ModelRef } from '../../core/llm/modelRef';
import { checkEndpoint, checkOllamaHost, KEY_ENVIRONMENT, type ProviderSettings } from '../../core/llm/providerSettings';
import { AnthropicModel } from './anthropicModel';
import { DEFAULT_OLLAMA_HOST, listOllamaModels, OllamaModel } from './ollamaModel';
import { OpenAiModel } from './openAiModel';

export { AnthropicModel, DEFAULT_OLLAMA_HOST, listOllamaModels, OllamaModel, OpenAiModel };

/**
 * The adapter for a model of any provider but `vscode` (which only the editor has), one provider
 * per file, each with its own key and endpoint. Built as dist/llm.js; the SDKs load on first request.
 * Throws an EndpointError for an endpoint that is not an http(s) URL.
 */
export function providerAdapter(ref: ModelRef, settings: ProviderSettings): MemberOffer {
  const contextWindow = settings.contextWindow || undefined;
  switch (ref.provider) {
    case 'anthropic': {
      const apiKey = settings.anthropic.apiKey?.trim();
      if (!apiKey) return { missing: noKey('anthropic') };
      return { adapter: new AnthropicModel({ apiKey, model: ref.model, contextWindow, baseURL: checkEndpoint(settings.anthropic.baseUrl ?? '', 'The Anthropic base URL (repoWiki.llm.baseUrl, ANTHROPIC_BASE_URL)') }) };
    }
    case 'openai': {
      const baseURL = checkEndpoint(settings.openai.baseUrl ?? '', 'The OpenAI base URL (repoWiki.llm.openai.baseUrl, OPENAI_BASE_URL)');
      const apiKey = settings.openai.apiKey?.trim() ?? '';
      // A local OpenAI-compatible server (LM Studio, llama.cpp, vLLM) usually takes no key; the OpenAI API does.
      if (!apiKey && !baseURL) return { missing: noKey('openai') };
      return { adapter: new OpenAiModel({ provider: 'openai', model: ref.model, apiKey, baseURL, contextWindow }) };
    }
    case 'azure': {
      const apiKey = settings.azure.apiKey?.trim();
      if (!apiKey) return { missing: noKey('azure') };
      const endpoint = checkEndpoint(settings.azure.endpoint ?? '', 'The Azure OpenAI endpoint (repoWiki.llm.azure.endpoint, AZURE_OPENAI_ENDPOINT)');
      return { adapter: new OpenAiModel({ provider: 'azure', model: ref.model, apiKey, endpoint, apiVersion: settings.azure.apiVersion?.trim() || undefined, contextWindow }) };
    }
    case 'ollama':
      return { adapter: new OllamaModel({ model: ref.model, host: checkOllamaHost(settings.ollama.host ?? '', 'The Ollama host (repoWiki.llm.ollama.host, OLLAMA_HOST)') ?? DEFAULT_OLLAMA_HOST, contextWindow }) };
    case 'vscode':
      return { missing: 'VS Code language models are only available inside VS Code.' };
  }
}

function noKey(provider: 'anthropic' | 'openai' | 'azure'): string {
  return `no API key (${KEY_ENVIRONMENT[provider]} is not set, and none is stored)`;
}
