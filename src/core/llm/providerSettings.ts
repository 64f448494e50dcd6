import type { ProviderId } from './modelRef';

/** Keys and endpoints per provider. Each key goes only to its own provider's endpoint. */
export interface ProviderSettings {
  anthropic: { apiKey?: string; baseUrl?: string };
  openai: { apiKey?: string; baseUrl?: string };
  azure: { apiKey?: string; endpoint?: string; apiVersion?: string };
  ollama: { host?: string };
  /** The window to assume or impose, in tokens; 0 or absent: the provider's word, else the table. */
  contextWindow?: number;
}

/** The providers that take an API key, and the environment variable each reads. */
export const KEY_ENVIRONMENT: Partial<Record<ProviderId, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  azure: 'AZURE_OPENAI_API_KEY',
};

/** A base URL a key may be sent to: http(s) only, never `file:` or a typo that is no URL. */
export function checkEndpoint(value: string, setting: string): string | undefined {
  const text = value.trim();
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new EndpointError(`${setting} is not a URL: "${text}". Write it as http://host:port or https://host/path.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EndpointError(`${setting} must be an http or https URL, not "${url.protocol}" (${text}).`);
  return text.replace(/\/+$/, '');
}

const OLLAMA_PORT = 11434;

/**
 * An Ollama host as OLLAMA_HOST is written for Ollama itself: `http://host:port`, or a bare
 * `host:port`, `host` or `:port`, which Ollama reads as http on 127.0.0.1 and port 11434 when left out.
 */
export function checkOllamaHost(value: string, setting: string): string | undefined {
  const text = value.trim();
  if (!text || /^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return checkEndpoint(text, setting);
  const hostPort = text.startsWith(':') ? `127.0.0.1${text}` : text;
  return checkEndpoint(`http://${/:\d+(\/|$)/.test(hostPort) ? hostPort : hostPort.replace(/^([^/]+)/, `$1:${OLLAMA_PORT}`)}`, setting);
}

export class EndpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EndpointError';
  }
}
