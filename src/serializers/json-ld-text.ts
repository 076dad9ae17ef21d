/**
 * Text in JSON-LD as the original writes it (recorded on TEC 6.17), shared by events, venues and organizers.
 */
import { autop, escHtml } from '../domain/content/html.js';

function plainExcerpt(html: string, words = 55): string {
  const text = html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const parts = text.split(' ');
  return parts.length > words ? `${parts.slice(0, words).join(' ')}…` : text;
}

/**
 * WordPress' esc_js, which the original's JSON-LD passes its descriptions through: `&<>"` as entities (an entity
 * already written is kept), backslashes dropped, `&#39;` back to `'`, then `'` and `"`… slashed and each line
 * break written as the two characters `\n` (recorded: `&lt;p&gt;…&lt;/p&gt;\n`, a backslash and an n).
 */
export function escJs(text: string): string {
  const special = escHtml(text).replace(/&#039;/g, "'");
  return special
    .replace(/\\(.?)/g, '$1')
    .replace(/&#(x)?0*(27|39);?/gi, (m, hex: string | undefined, code: string) => ((hex ? code === '27' : code === '39') ? "'" : m))
    .replace(/\r/g, '')
    .replace(/['"\\]/g, '\\$&')
    .replace(/\0/g, '\\0')
    .replace(/\n/g, '\\n');
}

/**
 * JSON-LD's description, as the original writes it (recorded on TEC 6.17): the excerpt (its HTML kept), else the
 * text's first 55 words without tags, in paragraphs (wpautop's, ending in a line break), through esc_js; empty
 * stays empty.
 */
export function jsonLdDescription(excerpt: string, content: string): string {
  const text = excerpt.trim() !== '' ? excerpt : plainExcerpt(content);
  if (text.trim() === '') return '';
  const paragraphs = autop(text);
  return escJs(paragraphs.endsWith('\n') ? paragraphs : `${paragraphs}\n`);
}
