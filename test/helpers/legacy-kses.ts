/**
 * TEST SUPPORT ONLY: the hand-written kses this service used before `sanitize-html` (src/domain/content/html.ts)
 * replaced it, kept verbatim (but for its allow-list, shared with the new one) so the hostile-HTML corpus (html.hostile.test.ts) can show what it let through.
 * Production code must never import this file.
 */
// the allow-list is the one the library now applies: what differs is only the algorithm
import { ALLOWED_TAGS, COMMON_ATTRIBUTES } from '../../src/domain/content/html.js';
const URL_ATTRIBUTES = new Set(['href', 'src', 'cite']);
/** Elements whose content goes with them, not just their tags. */
const DROP_WITH_CONTENT = /<(script|style|iframe|object|embed|noscript|template|textarea|select|svg|math)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;

function safeUrl(url: string): boolean {
  const decoded = url
    .replace(/&#x?[0-9a-f]+;?/gi, '')
    .replace(/[\s\u0000-\u001f]/g, '')
    .toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(decoded);
  return !scheme || ['http', 'https', 'mailto', 'tel', 'ftp'].includes(scheme[1]);
}

function escapeAttribute(value: string): string {
  return value
    .replace(/&(?![a-z0-9#]+;)/gi, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function rewriteTag(tag: string): string {
  const m = /^<\s*(\/)?\s*([a-z][a-z0-9]*)([\s\S]*?)(\/)?\s*>$/i.exec(tag);
  if (!m) return '';
  const [, closing, rawName, rawAttributes] = m;
  const name = rawName.toLowerCase();
  const allowed = ALLOWED_TAGS[name];
  if (!allowed) return '';
  if (closing) return `</${name}>`;
  const attributes: string[] = [];
  const attrRe = /([a-z_:][a-z0-9_:.-]*)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/gi;
  let a: RegExpExecArray | null;
  while ((a = attrRe.exec(rawAttributes)) !== null) {
    const attr = a[1].toLowerCase();
    if (!allowed.includes(attr) && !COMMON_ATTRIBUTES.includes(attr)) continue;
    const value = a[2] ?? a[3] ?? a[4] ?? '';
    if (URL_ATTRIBUTES.has(attr) && !safeUrl(value)) continue;
    attributes.push(`${attr}="${escapeAttribute(value)}"`);
  }
  const selfClosing = name === 'br' || name === 'hr' || name === 'img';
  return `<${name}${attributes.length ? ` ${attributes.join(' ')}` : ''}${selfClosing ? ' /' : ''}>`;
}

/** Keeps a safe subset of HTML (what WordPress allows in posts for authors and contributors). */
export function legacySanitizeHtml(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(DROP_WITH_CONTENT, '')
    .replace(/<[^>]*>?/g, (tag) => (tag.endsWith('>') ? rewriteTag(tag) : tag.replace(/</g, '&lt;')));
}

/** Strips every tag and collapses white space (venue/organizer text fields). */
export function legacyPlainText(text: string): string {
  return text
    .replace(DROP_WITH_CONTENT, '')
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
