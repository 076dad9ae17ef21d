/**
 * Text as WordPress treats it: HTML sanitising for callers without `unfiltered_html` (WordPress' kses), the
 * content and excerpt filters' paragraphs (wpautop), the title filter's typography (wptexturize) and
 * HTML escaping.
 *
 * Sanitising is `sanitize-html` (ApostropheCMS), not our own code: a hand-written tag filter cannot follow how
 * browsers parse broken markup, entities and foreign (SVG/MathML) content, and this one must. Chosen because it
 * is an allow-list filter over a real HTML tokenizer (htmlparser2), released about monthly through 2026, and
 * quick with security reports: the `<xmp>` passthrough (CVE-2026-44990) was fixed in 2.17.4, the
 * `<svg><textarea>` and `</textarea/>` raw-text bypasses in 2.17.6, the `<noscript>` and
 * `<meta http-equiv=refresh>` bypasses in 2.18; no advisory was open against 2.18.1 when it was adopted.
 * (Since 2.17.6 it declares Node >= 22.12, because htmlparser2 12 is ESM-only: Node 20.19+ loads it alike,
 * `require(esm)` being on by default there, and the suite runs it on Node 20.)
 * The allowed tags and attributes are those of the previous hand-written filter (what WordPress allows in posts
 * for authors and contributors; CONTRACT.md §9.4 names kses and no narrower list), and URL attributes take only
 * http, https, mailto, tel and ftp.
 */
import sanitize from 'sanitize-html';

/** The tags and attributes kept for callers without `unfiltered_html` (also the old filter's, which a test replays). */
export const ALLOWED_TAGS: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'title', 'target', 'rel'],
  abbr: ['title'],
  b: [],
  blockquote: ['cite'],
  br: [],
  caption: [],
  cite: [],
  code: [],
  dd: [],
  del: ['datetime'],
  div: [],
  dl: [],
  dt: [],
  em: [],
  figcaption: [],
  figure: [],
  h1: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  hr: [],
  i: [],
  img: ['src', 'alt', 'width', 'height', 'title'],
  ins: ['datetime'],
  li: [],
  ol: ['start'],
  p: [],
  pre: [],
  q: ['cite'],
  s: [],
  small: [],
  span: [],
  strike: [],
  strong: [],
  sub: [],
  sup: [],
  table: [],
  tbody: [],
  td: ['colspan', 'rowspan'],
  tfoot: [],
  th: ['colspan', 'rowspan', 'scope'],
  thead: [],
  tr: [],
  u: [],
  ul: [],
};
export const COMMON_ATTRIBUTES: readonly string[] = ['class', 'id', 'lang', 'dir'];

/**
 * Elements dropped with everything inside them, not just their tags: the library's own list (script, style,
 * textarea, option, xmp) plus what the previous filter also dropped whole (embedded content, templates, and
 * SVG/MathML, whose text is not text a reader should see).
 */
const DROP_WITH_CONTENT = [
  'script',
  'style',
  'textarea',
  'option',
  'xmp',
  'iframe',
  'object',
  'embed',
  'noscript',
  'noembed',
  'noframes',
  'template',
  'select',
  'svg',
  'math',
];

const POST_HTML: sanitize.IOptions = {
  allowedTags: Object.keys(ALLOWED_TAGS),
  allowedAttributes: { ...Object.fromEntries(Object.entries(ALLOWED_TAGS).map(([tag, attrs]) => [tag, [...attrs]])), '*': [...COMMON_ATTRIBUTES] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel', 'ftp'],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  // `//host/path` is an http(s) URL of the page's own scheme, as kses allows
  allowProtocolRelative: true,
  disallowedTagsMode: 'discard',
  nonTextTags: DROP_WITH_CONTENT,
  // our allow-list has no style attribute; never run CSS through postcss
  parseStyleAttributes: false,
};

const NO_TAGS: sanitize.IOptions = {
  allowedTags: [],
  allowedAttributes: {},
  disallowedTagsMode: 'discard',
  nonTextTags: DROP_WITH_CONTENT,
  parseStyleAttributes: false,
};

/** Keeps a safe subset of HTML (what WordPress allows in posts for authors and contributors). */
export function sanitizeHtml(html: string): string {
  return sanitize(html, POST_HTML);
}

const TEXT_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };

/**
 * Strips every tag and collapses white space (venue/organizer text fields), as WordPress' sanitize_text_field
 * does: the result is text, not HTML, so the library's escaping is undone, except that a `<` stays `&lt;`
 * (wp_pre_kses_less_than) and no tag can form when a client shows the field as HTML.
 */
export function plainText(text: string): string {
  return sanitize(text, NO_TAGS)
    .replace(/&(?:amp|lt|gt|quot);/g, (entity) => TEXT_ENTITIES[entity])
    .replace(/</g, '&lt;')
    .replace(/\s+/g, ' ')
    .trim();
}

const BLOCK =
  '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary)';

const BLOCK_START = new RegExp(`^<${BLOCK}[\\s/>]`, 'i');

/** WordPress' wpautop, simplified: blank lines make paragraphs, single newlines `<br />`, blocks stay. */
export function autop(text: string): string {
  // one line (most descriptions and excerpts of a list): a paragraph, or the block it is
  if (!text.includes('\n') && !text.includes('\r')) {
    const line = text.trim();
    return line === '' || BLOCK_START.test(line) ? line : `<p>${line}</p>`;
  }
  const normalised = text.replace(/\r\n?/g, '\n').trim();
  if (normalised === '') return '';
  return normalised
    .split(/\n\s*\n/)
    .map((chunk) => chunk.trim())
    .filter((chunk) => chunk !== '')
    .map((chunk) => (BLOCK_START.test(chunk) ? chunk : `<p>${chunk.replace(/\n/g, '<br />\n')}</p>`))
    .join('\n')
    .trim();
}

/** What texturize's replacements look for: a text without any of these comes out as it went in (trimmed). */
const TEXTURIZED = /[-.'"]/;

/** The typography of WordPress' title filter: curly quotes, dashes, ellipses as numeric entities. */
export function texturize(text: string): string {
  // most titles have none (~3.7 µs a title through the ten replacements below, and a list shows a dozen)
  if (!TEXTURIZED.test(text)) return text.trim();
  return text
    .split(/(<[^>]*>)/)
    .map((part) =>
      part.startsWith('<')
        ? part
        : part
            .replace(/---/g, '&#8212;')
            .replace(/ -- /g, ' &#8212; ')
            .replace(/--/g, '&#8211;')
            .replace(/ - /g, ' &#8211; ')
            .replace(/\.\.\./g, '&#8230;')
            .replace(/(^|[\s([{"-])"/g, '$1&#8220;')
            .replace(/"/g, '&#8221;')
            .replace(/(\w)'(\w)/g, '$1&#8217;$2')
            .replace(/(^|[\s([{"-])'/g, '$1&#8216;')
            .replace(/'/g, '&#8217;'),
    )
    .join('')
    .trim();
}

/**
 * What WordPress keeps of a term name (sanitize_text_field, kses, _wp_specialchars): `&`, `<`, `>` as entities,
 * existing entities left alone, quotes as they are. Applied when a name leaves the API, so names are stored as
 * written and still name their term (`Festivals & Fairs` → `Festivals &amp; Fairs`, recorded from the original).
 */
export function specialChars(text: string): string {
  if (!/[&<>]/.test(text)) return text;
  return text
    .replace(/&(?!(?:[a-z][a-z0-9]*|#[0-9]+|#x[0-9a-f]+);)/gi, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * The text a term's name shows where what is written is escaped (pages, iCalendar): the API's name
 * (specialChars) as a browser would show it. A name stored as written (`Festivals & Fairs`) and one imported as
 * the original served it (`Festivals &amp; Fairs`) read the same.
 */
export function termText(name: string): string {
  return htmlToText(specialChars(name));
}

/** esc_html: special characters to entities, existing entities left alone. */
export function escHtml(text: string): string {
  return text
    .replace(/&(?!(?:[a-z][a-z0-9]*|#[0-9]+|#x[0-9a-f]+);)/gi, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '–',
  mdash: '—',
  hellip: '…',
};

/**
 * The text a browser would show for a title that may hold tags and entities (WordPress titles may), for
 * places that escape what they write (the HTML pages): tags dropped, entities decoded.
 */
export function htmlToText(html: string): string {
  return html.replace(/<[^>]*>/g, '').replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] !== '#') return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
  });
}
