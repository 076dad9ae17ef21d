/**
 * Event cost as the original keeps it (CONTRACT.md §2.6): the strings as sent; a currency symbol and its
 * position derived from them on write; on read, every number found, and a display string (min – max, 0 as
 * "Free", the symbol where it was written, `$` in front when none was).
 */
import { escHtml } from '../content/html.js';
import { sanitizeSlug } from '../slugs.js';

const NUMBER = /\d+(?:[.,]\d+)*/g;
const DEFAULT_SYMBOL = '$';
const EN_DASH = '\u2013';

/** "1,000.50" → "1000.50", "6,50" → "6.50", "1.000.000" → "1000000". */
export function normaliseNumber(raw: string): string {
  const dots = (raw.match(/\./g) ?? []).length;
  const commas = (raw.match(/,/g) ?? []).length;
  if (dots > 0 && commas > 0) {
    const decimal = raw.lastIndexOf('.') > raw.lastIndexOf(',') ? '.' : ',';
    const [int, frac] = [raw.slice(0, raw.lastIndexOf(decimal)), raw.slice(raw.lastIndexOf(decimal) + 1)];
    return `${int.replace(/[.,]/g, '')}.${frac}`;
  }
  if (commas === 1) {
    const frac = raw.slice(raw.indexOf(',') + 1);
    return frac.length === 3 ? raw.replace(',', '') : raw.replace(',', '.');
  }
  if (commas > 1) return raw.replace(/,/g, '');
  if (dots > 1) return raw.replace(/\./g, '');
  return raw;
}

/**
 * The costs as the original reads them back: a lone `"0"` is PHP's `empty()`, so no cost at all (recorded on a
 * TEC 6.17 site: `cost: "0"` answers `cost: ""` and `values: []`). Zero within a range stays, as "Free".
 */
function shownCosts(costs: readonly string[]): readonly string[] {
  return costs.length === 1 && costs[0].trim() === '0' ? [] : costs;
}

/** Every number of the cost strings, normalised, unique, ascending. */
export function costNumbers(costs: readonly string[]): string[] {
  const byValue = new Map<number, string>();
  for (const cost of shownCosts(costs)) {
    for (const m of cost.match(NUMBER) ?? []) {
      const n = normaliseNumber(m);
      const value = Number(n);
      if (Number.isFinite(value) && !byValue.has(value)) byValue.set(value, n);
    }
  }
  return [...byValue.entries()].sort((a, b) => a[0] - b[0]).map(([, s]) => s);
}

/** The currency symbol and its position, when every numeric cost string agrees on them. */
export function deriveCurrency(costs: readonly string[]): { symbol: string; position: string } {
  let found: { symbol: string; position: string } | undefined;
  for (const cost of costs) {
    const first = cost.search(/\d/);
    if (first < 0) continue;
    // a range in one string ("$199 - $499") names no symbol: recorded on a TEC 6.17 site, it answers symbol and
    // position "" (and shows the default `$` before both numbers)
    if ((cost.match(NUMBER) ?? []).length > 1) return { symbol: '', position: '' };
    let symbol = cost
      .replace(NUMBER, '')
      .replace(/[\s\-–—]+/g, '')
      .trim();
    // words around a price ("from 10 per person") are not a currency symbol
    if (symbol.length > 8) symbol = '';
    const position = symbol === '' ? '' : cost.trimStart().startsWith(symbol) ? 'prefix' : 'postfix';
    if (found === undefined) found = { symbol, position };
    else if (found.symbol !== symbol || found.position !== position) return { symbol: '', position: '' };
  }
  return found ?? { symbol: '', position: '' };
}

/** The first cost string with something in it, trimmed (what a cost without numbers shows). */
export function costText(costs: readonly string[]): string | undefined {
  return shownCosts(costs)
    .map((c) => c.trim())
    .find((c) => c !== '');
}

/** The values `cost_details` lists: every number found, else the first text as a slug (`Donation` → `donation`). */
export function costValues(costs: readonly string[], numbers: readonly string[] = costNumbers(costs)): string[] {
  if (numbers.length > 0) return [...numbers];
  const text = costText(costs);
  return text === undefined ? [] : [sanitizeSlug(text)];
}

/** The display string; `numbers`: costNumbers(costs), when the caller has them already. */
export function formatCost(costs: readonly string[], symbol: string, position: string, numbers: readonly string[] = costNumbers(costs)): string {
  if (numbers.length === 0) {
    const text = costText(costs);
    return text === undefined ? '' : escHtml(text);
  }
  const sym = symbol === '' ? DEFAULT_SYMBOL : symbol;
  const pos = symbol === '' ? 'prefix' : position;
  const one = (n: string) => (Number(n) === 0 ? 'Free' : pos === 'postfix' ? `${n}${sym}` : `${sym}${n}`);
  const min = numbers[0];
  const max = numbers[numbers.length - 1];
  return escHtml(min === max ? one(min) : `${one(min)} ${EN_DASH} ${one(max)}`);
}
