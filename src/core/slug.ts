import { WikiError } from './errors';

export const MAX_SLUG_LENGTH = 80;
const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function isValidSlug(slug: string): boolean {
  return slug.length <= MAX_SLUG_LENGTH && SLUG_PATTERN.test(slug);
}

/** Throws unless `slug` is safe to turn into a file name inside `.wiki/pages/`. */
export function assertSlug(slug: string): void {
  if (!isValidSlug(slug)) {
    throw new WikiError(
      'invalid-slug',
      `"${slug.slice(0, 100)}" is not a valid page slug.`,
      `Slugs use lowercase a-z, 0-9 and single hyphens, at most ${MAX_SLUG_LENGTH} characters.`,
    );
  }
}

export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, '');
  return slug || 'page';
}

/** `base`, or `base-2`, `base-3`, … : the first one not in `taken`, still within the length limit. */
export function uniqueSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = base.slice(0, MAX_SLUG_LENGTH - suffix.length).replace(/-+$/, '') + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
