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
    .slice(0, MAX_SLUG_LENGTH);
}

/** The longest slug stored (the columns are `varchar(200)`, as WordPress' `post_name`). */
export const MAX_SLUG_LENGTH = 200;

/** `base-n`, the base shortened to leave room for the suffix as WordPress' `_truncate_post_slug` does. */
function numberedSlug(base: string, n: number): string {
  const suffix = `-${n}`;
  return `${base.slice(0, MAX_SLUG_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/**
 * The first free slug of `base`, `base-2`, `base-3`, …: asks `taken` about the base alone first (it is nearly
 * always free), then about batches of twenty candidates (one indexed lookup per batch, whatever the number of
 * posts).
 */
export async function firstFreeSlug(base: string, taken: (candidates: string[]) => Promise<ReadonlySet<string>>): Promise<string> {
  if (!(await taken([base])).has(base)) return base;
  for (let from = 2; ; from += 20) {
    const candidates = Array.from({ length: 20 }, (_, i) => numberedSlug(base, from + i));
    const used = await taken(candidates);
    const free = candidates.find((c) => !used.has(c));
    if (free !== undefined) return free;
  }
}
