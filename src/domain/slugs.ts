/**
 * Slugs the way WordPress' sanitize_title makes them: lower case, accents removed from Latin letters
 * (remove_accents), spaces, dots, slashes and dashes to dashes, ASCII punctuation and the typographic marks
 * WordPress strips (quotes, ellipsis, ©, ™…) dropped, dashes collapsed. Every other character is kept as it
 * is — Greek with its accents, kana with their voicing marks, emoji — as WordPress keeps them (it
 * percent-encodes them; readable slugs serve our clients better), so a slug imported from a WordPress site
 * stays the same slug here.
 */
const DROPPED = /[¡¿«»‹›‘’‚‛“”„‟′″•©®°…™´ˊ˜¨\u00ad]/g;
/**
 * What sanitize_title strips before anything else: characters without a width (zero-width space, non-joiner and
 * joiner — the `👨‍👩‍👧` of a family emoji comes apart, as recorded from a TEC 6.17 site —, direction marks and
 * embeddings, the byte order mark, the object replacement character) and the combining acute, grave, macron and
 * caron (a decomposed Latin letter keeps its letter; a Greek one loses the mark, as in WordPress).
 */
const WIDTHLESS = /[\u0300\u0301\u0304\u030c\u0341\u200b-\u200f\u202a-\u202e\ufeff\ufffc]/g;
const DASHES = /[.\u00a0\u2013\u2014/]/g;

/**
 * Latin letters with no decomposition, spelt as remove_accents spells them outside German locales: `ß` is `s`
 * (recorded from a TEC 6.17 site: `„Grüße“` → `gruse`), `þ` is `th`, `œ` is `oe`.
 */
const LETTER_SPELLING: Readonly<Record<string, string>> = {
  ß: 's',
  æ: 'ae',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  œ: 'oe',
  ħ: 'h',
  ı: 'i',
  ĳ: 'ij',
  ĸ: 'k',
  ŋ: 'n',
  ŉ: 'n',
  ſ: 's',
  ŧ: 't',
};
const LETTERS = new RegExp(`[${Object.keys(LETTER_SPELLING).join('')}]`, 'g');

/** Text the general path below would only lower-case and join with dashes. */
const PLAIN = /^[A-Za-z0-9 _-]*$/;

export function sanitizeSlug(input: string): string {
  // most titles and names: no tag, entity, accent, punctuation or other space than ' ' — the same slug without
  // the twenty passes below (which cost a create ~2 % of its CPU: an event, its venue, organizer and terms)
  if (PLAIN.test(input)) {
    return input
      .toLowerCase()
      .replace(/ +/g, '-')
      .replace(/-+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, MAX_SLUG_LENGTH);
  }
  return sanitizeAnySlug(input);
}

/** sanitizeSlug's general path (exported for the test that holds the short path to it). */
export function sanitizeAnySlug(input: string): string {
  return (
    input
      .replace(/<[^>]*>/g, '')
      .replace(/&[a-z0-9#]+;/gi, '')
      .replace(WIDTHLESS, '')
      .normalize('NFD')
      .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
      .normalize('NFC')
      .toLowerCase()
      .replace(LETTERS, (letter) => LETTER_SPELLING[letter])
      .replace(/×/g, 'x')
      .replace(DASHES, '-')
      .replace(DROPPED, '')
      // ASCII is kept only for letters, digits, spaces, underscores and dashes (the rest is punctuation)
      .replace(/[!-,./:-@[-^`{-~]/g, '')
      .replace(/\p{Cc}/gu, '')
      .replace(/\s+/g, '-')
      .replace(/-+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, MAX_SLUG_LENGTH)
  );
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

/**
 * What a by-slug lookup finds: the slug asked for, then, when it differs and names nothing, the one WordPress'
 * lookup finds (get_page_by_path runs sanitize_title_for_query over the path, lower-casing it and turning spaces and
 * dots into dashes, and MySQL compares without case): `/events/by-slug/My-Event` and `…/My%20Event` name `my-event`.
 */
export async function findBySlugAsWordPress<T>(slug: string, find: (slug: string) => Promise<T | undefined>): Promise<T | undefined> {
  const found = await find(slug);
  if (found !== undefined) return found;
  const sanitized = sanitizeSlug(slug);
  return sanitized !== '' && sanitized !== slug ? find(sanitized) : undefined;
}
