/**
 * The date window of `GET /events` (CONTRACT.md §3.4): defaults, inclusive whole days or exact instants
 * (`strict_dates`), relative bounds, and how they combine. Bounds are wall-clock strings in the site zone,
 * compared with the events' stored wall-clock start and end. The arguments arrive validated (their checks parse
 * them); one that does not parse here is still answered as the 400 it is.
 */

import { parseDateInput } from '../../time/strtotime.js';
import { formatWall, getZone, msToWall, utcMsToZonedWall, wallToMs, type Zone } from '../../time/zones.js';
import { errors } from '../errors.js';

/** The date arguments of a list, by domain name (null or undefined: not given). */
export type DateArgs = Partial<Record<'startDate' | 'endDate' | 'startsBefore' | 'startsAfter' | 'endsBefore' | 'endsAfter', string | null>>;

export interface DateWindow {
  startGte?: string;
  endLte?: string;
  startLt?: string;
  startGt?: string;
  endLt?: string;
  endGt?: string;
  /** The effective values of the date arguments, as the emitted URLs carry them. */
  effective: Partial<Record<keyof DateArgs, string>>;
}

const RELATIVE = ['startsBefore', 'startsAfter', 'endsBefore', 'endsAfter'] as const;

function day(ms: number): string {
  return formatWall(msToWall(ms)).slice(0, 10);
}

/** Default window: from the beginning of (site-local) "yesterday 23:59 UTC" to the end of the day 24 months ahead. */
export function defaultWindow(nowMs: number, site: Zone): { start: string; end: string } {
  const yesterday = new Date(nowMs - 86_400_000);
  const cut = Date.UTC(yesterday.getUTCFullYear(), yesterday.getUTCMonth(), yesterday.getUTCDate(), 23, 59, 0);
  const start = `${formatWall(utcMsToZonedWall(cut, site)).slice(0, 10)} 00:00:00`;
  const ahead = new Date(nowMs);
  ahead.setUTCMonth(ahead.getUTCMonth() + 24);
  return { start, end: `${day(ahead.getTime())} 23:59:59` };
}

/**
 * Inclusive (default): the calendar day as written — start_date from its 00:00:00, end_date to its 23:59:59,
 * and every relative bound at its day's 23:59:59. Strict: the exact instant, strings read as UTC, compared in the
 * site zone; unix timestamps are absolute. The effective values (the emitted URLs') of strict bounds carry the
 * site's offset, so that a URL that carries `strict_dates` names the same window again.
 */
export function resolveDateWindow(args: DateArgs, options: { strict: boolean; include: boolean; nowMs: number; siteZone: string }): DateWindow {
  const site = getZone(options.siteZone);
  const utc = getZone('UTC');
  const inclusiveDay = (value: string) => {
    const parsed = parseDateInput(value, { nowMs: options.nowMs, zone: site });
    if (!parsed) throw errors.invalidParam('date');
    return formatWall(parsed.wall).slice(0, 10);
  };
  // strict bounds as the emitted URLs carry them: the site's wall time (the original's computed bound) with the
  // site's offset where it has one, which a request with strict_dates reads back as the same instant (without it
  // the wall time would be read as UTC and moved by the offset again: the next page would name another window)
  const asSent = new Map<string, string>();
  const exact = (value: string) => {
    const parsed = parseDateInput(value, { nowMs: options.nowMs, zone: utc });
    if (!parsed) throw errors.invalidParam('date');
    const instant = parsed.instantMs ?? wallToMs(parsed.wall);
    const local = formatWall(utcMsToZonedWall(instant, site));
    const offset = site.offsetAt(instant);
    if (offset !== 0) {
      const abs = Math.abs(offset);
      asSent.set(local, `${local}${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`);
    }
    return local;
  };
  const carried = (bound: string | undefined) => (bound !== undefined ? (asSent.get(bound) ?? bound) : bound);

  const relativeGiven = RELATIVE.some((k) => args[k] != null);
  const defaults = defaultWindow(options.nowMs, site);
  const w: DateWindow = { effective: {} };

  if (!options.include) {
    if (args.startDate != null) w.startGte = options.strict ? exact(args.startDate) : `${inclusiveDay(args.startDate)} 00:00:00`;
    else if (!relativeGiven) w.startGte = options.strict ? exact(defaults.start) : defaults.start;
    if (args.endDate != null) w.endLte = options.strict ? exact(args.endDate) : `${inclusiveDay(args.endDate)} 23:59:59`;
    else if (!relativeGiven) w.endLte = options.strict ? exact(defaults.end) : defaults.end;
  }
  const bound = (value: string) => (options.strict ? exact(value) : `${inclusiveDay(value)} 23:59:59`);
  if (args.startsBefore != null) w.startLt = bound(args.startsBefore);
  if (args.startsAfter != null) w.startGt = bound(args.startsAfter);
  if (args.endsBefore != null) w.endLt = bound(args.endsBefore);
  if (args.endsAfter != null) w.endGt = bound(args.endsAfter);

  w.effective = {
    startDate: carried(w.startGte),
    endDate: carried(w.endLte),
    startsBefore: carried(w.startLt),
    startsAfter: carried(w.startGt),
    endsBefore: carried(w.endLt),
    endsAfter: carried(w.endGt),
  };
  return w;
}

/** WordPress search: words (quoted phrases kept together) that must all appear; `-word` must not. */
export function parseSearch(search: string): { words: string[]; excluded: string[] } {
  const words: string[] = [];
  const excluded: string[] = [];
  for (const m of search.matchAll(/(-?)"([^"]+)"|(-?)(\S+)/g)) {
    const negative = (m[1] ?? m[3]) === '-';
    const term = (m[2] ?? m[4] ?? '').trim();
    if (term === '' || term === '-') continue;
    (negative ? excluded : words).push(term);
  }
  if (words.length === 0 && excluded.length === 0) words.push(search.trim());
  return { words, excluded };
}
