/** Conversation tags, as both the host and the webview check them. */

export const MAX_TAG_CHARS = 40;
/** A stored tag: starts with a letter or digit; then letters, digits, "_", "." or "-"; lowercase (see isTag). */
const TAG_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,39}$/u;

export const isTag = (value: unknown): value is string => typeof value === 'string' && TAG_PATTERN.test(value) && value === value.toLowerCase();

/**
 * A tag as stored, from what a person typed: lowercase, spaces as "-", only letters, digits, "_",
 * "." and "-", at most MAX_TAG_CHARS. Undefined when nothing of it is left.
 */
export function normaliseTag(raw: string): string | undefined {
  const tag = raw.trim().toLowerCase().replace(/^#/, '').replace(/\s+/g, '-').replace(/[^\p{L}\p{N}_.-]/gu, '').replace(/^[_.-]+/, '').slice(0, MAX_TAG_CHARS);
  return isTag(tag) ? tag : undefined;
}
