/** Messages between the chat webview and the extension host. Both sides validate what they receive. */

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'runCommand'; command: AllowedCommand };

export type HostToWebview = { type: 'state'; hasWiki: boolean; trusted: boolean };

/** The only commands a webview may ask for; it can never name an arbitrary command. */
export const ALLOWED_COMMANDS = ['repoWiki.init', 'repoWiki.newPage', 'repoWiki.lint'] as const;
export type AllowedCommand = (typeof ALLOWED_COMMANDS)[number];

export function parseWebviewMessage(value: unknown): WebviewToHost | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as Record<string, unknown>;
  const keys = Object.keys(message);
  if (message.type === 'ready' && keys.length === 1) return { type: 'ready' };
  if (message.type === 'runCommand' && keys.length === 2 && ALLOWED_COMMANDS.includes(message.command as AllowedCommand)) {
    return { type: 'runCommand', command: message.command as AllowedCommand };
  }
  return undefined;
}

export function parseHostMessage(value: unknown): HostToWebview | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as Record<string, unknown>;
  if (message.type === 'state' && typeof message.hasWiki === 'boolean' && typeof message.trusted === 'boolean') {
    return { type: 'state', hasWiki: message.hasWiki, trusted: message.trusted };
  }
  return undefined;
}
