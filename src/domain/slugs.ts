/**
 * Slugs the way WordPress' sanitize_title makes them: lower case, accents removed, spaces and dots to dashes,
 * other punctuation dropped, dashes collapsed. Letters of non-Latin scripts are kept as they are (WordPress
 * percent-encodes them; readable slugs serve our clients better).
 */
export function sanitizeSlug(input: string): string {
  return input
    .replace(/<[^>]*>/g, '')
    .replace(/&[a-z0-9#]+;/gi, '')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/ß/g, 'ss')
    .replace(/æ/gi, 'ae')
    .replace(/ø/gi, 'o')
    .replace(/đ/gi, 'd')
    .replace(/ł/gi, 'l')
    .toLowerCase()
    .replace(/[.\u2013\u2014/]/g, '-')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200);
}

/**
 * The first of `base`, `base-2`, `base-3`, … that `taken` does not hold. `taken` is the set of existing slugs
 * that start with `base` (callers load it with one query).
 */
export function uniqueSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
