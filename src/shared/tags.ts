/** Conversation tags, as both the host and the webview check them. */

export const MAX_TAG_CHARS = 40;
/** A stored tag: starts with a letter or digit; then letters, digits, "_", "." or "-". */
export const TAG_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,39}$/u;

export const isTag = (value: unknown): value is string => typeof value === 'string' && TAG_PATTERN.test(value);
