import { WikiError } from '../errors';

export const MAX_SLUG_LENGTH = 80;
const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// Windows opens a device, not a file, for these names with any extension: `.wiki/pages/con.md` cannot be checked out there.
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/** Why `slug` cannot name a page file, or undefined when it can. */
export function slugProblem(slug: string): string | undefined {
  if (slug.length > MAX_SLUG_LENGTH || !SLUG_PATTERN.test(slug)) {
    return `use lowercase a-z, 0-9 and single hyphens, at most ${MAX_SLUG_LENGTH} characters`;
  }
  if (WINDOWS_DEVICE.test(slug)) return 'Windows reserves that name for a device (con, prn, aux, nul, com0-com9, lpt0-lpt9)';
  return undefined;
}

export function isValidSlug(slug: string): boolean {
  return slugProblem(slug) === undefined;
}

/** Throws unless `slug` is safe to turn into a file name inside `.wiki/pages/`. */
export function assertSlug(slug: string): void {
  const problem = slugProblem(slug);
  if (problem) {
    throw new WikiError('invalid-slug', `"${slug.slice(0, 100)}" is not a valid page slug: ${problem}.`);
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
  if (WINDOWS_DEVICE.test(slug)) return `${slug}-page`;
  return slug || 'page';
}

/** `base`, or `base-2`, `base-3`, … : the first one not in `taken` nor a device name, still within the length limit. */
export function uniqueSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base) && !WINDOWS_DEVICE.test(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = base.slice(0, MAX_SLUG_LENGTH - suffix.length).replace(/-+$/, '') + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
