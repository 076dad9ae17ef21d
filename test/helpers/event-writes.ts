/**
 * Event writes that set every writable field, and checks that an event as read back holds what a write sent.
 * For tests that must tell a whole write from a partial or a lost one (the crash test): the writes use values
 * whose stored form is known (wall-clock dates in the event's zone, plain-text descriptions, names for terms),
 * so a check needs no knowledge of the service beyond the wire format.
 */

export type Body = Record<string, unknown>;

/** A small seeded generator (mulberry32), so a run's writes can be told apart and replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo'];
const STATUSES = ['publish', 'publish', 'draft', 'pending', 'private'];
const FLAGS = ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const;
const VENUE_FIELDS = ['venue', 'address', 'city', 'zip', 'country', 'phone'] as const;
const ORGANIZER_FIELDS = ['organizer', 'email', 'phone'] as const;

export interface WriteContext {
  /** Unique per write: the title, and the names of the venue and organizers it creates. */
  tag: string;
  create: boolean;
  /** Venues and organizers known to exist, to link by id. */
  venues: readonly number[];
  organizers: readonly number[];
}

/**
 * A create sends every group of fields; an update sends its title (which names the write) and each other group
 * with probability 0.4. Dates, zone and all_day go together; times stay clear of DST gaps (8:00–23:45).
 */
export function randomWrite(rand: () => number, ctx: WriteContext): Body {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const send = () => ctx.create || rand() < 0.4;
  const body: Body = { title: `crash ${ctx.tag}` };
  if (send()) body.description = `Crash description ${ctx.tag}`;
  if (send()) {
    const day = new Date(Date.UTC(2031, 0, 1) + int(0, 364) * 86_400_000);
    const allDay = rand() < 0.25;
    const startHour = int(8, 18);
    const minutes = pick(['00', '15', '30', '45']);
    const ymd = (d: Date) => d.toISOString().slice(0, 10);
    const two = (n: number) => String(n).padStart(2, '0');
    body.all_day = allDay;
    body.timezone = pick(ZONES);
    body.start_date = `${ymd(day)} ${two(startHour)}:${minutes}:00`;
    body.end_date = allDay
      ? `${ymd(new Date(day.getTime() + int(0, 2) * 86_400_000))} ${two(startHour)}:${minutes}:00`
      : `${ymd(day)} ${two(startHour + int(1, 5))}:${minutes}:00`;
  }
  if (send()) body.cost = rand() < 0.2 ? '' : String(int(0, 250));
  if (send()) body.website = rand() < 0.2 ? '' : `https://example.com/crash/${ctx.tag.replace(/\s+/g, '-')}`;
  for (const flag of FLAGS) if (send()) body[flag] = rand() < 0.5;
  if (send()) body.status = pick(STATUSES);
  if (send()) body.categories = [...new Set(Array.from({ length: int(0, 2) }, () => `crash-cat-${int(0, 5)}`))];
  if (send()) body.tags = [...new Set(Array.from({ length: int(0, 3) }, () => `crash-tag-${int(0, 7)}`))];
  if (send()) {
    const r = rand();
    if (r < 0.5 || ctx.venues.length === 0) {
      const k = int(1, 9999);
      body.venue = {
        venue: `Crash Hall ${ctx.tag}`,
        address: `${k} Crash Street`,
        city: pick(['Lyon', 'Porto', 'Osaka', 'Quebec']),
        zip: String(10000 + k),
        country: pick(['France', 'Portugal', 'Japan', 'Canada']),
        phone: `+1 555 ${k}`,
      };
    } else if (r < 0.8) body.venue = pick(ctx.venues);
    else body.venue = '';
  }
  if (send()) {
    body.organizer = Array.from({ length: int(0, 2) }, (_, j) =>
      rand() < 0.5 || ctx.organizers.length === 0
        ? { organizer: `Crash Org ${ctx.tag} #${j}`, email: `org-${j}-${ctx.tag.replace(/\s+/g, '-')}@example.com`, phone: `+33 ${int(100, 999)}` }
        : pick(ctx.organizers),
    );
    // the same organizer twice is linked once: keep the list as it will read back
    const seen = new Set<number>();
    body.organizer = (body.organizer as unknown[]).filter((o) => typeof o !== 'number' || (!seen.has(o) && seen.add(o)));
  }
  return body;
}

/** The fields a write can set, as read back: comparable between two reads of one event. */
export function fieldsOf(event: any): Record<string, unknown> {
  const venue = Array.isArray(event.venue) ? null : event.venue;
  return {
    title: event.title,
    description: event.description,
    start_date: event.start_date,
    end_date: event.end_date,
    timezone: event.timezone,
    all_day: event.all_day,
    cost: event.cost_details?.values,
    website: event.website,
    ...Object.fromEntries(FLAGS.map((f) => [f, event[f]])),
    status: event.status,
    categories: event.categories.map((c: any) => c.id).sort((a: number, b: number) => a - b),
    tags: event.tags.map((t: any) => t.id).sort((a: number, b: number) => a - b),
    venue: venue ? Object.fromEntries([['id', venue.id], ...VENUE_FIELDS.map((f) => [f, venue[f] ?? ''])]) : null,
    organizer: event.organizer.map((o: any) => Object.fromEntries([['id', o.id], ...ORGANIZER_FIELDS.map((f) => [f, o[f] ?? ''])])),
  };
}

/** Which fields of `fieldsOf` a sent key sets. */
function fieldsSetBy(key: string): string[] {
  if (key === 'start_date' || key === 'end_date' || key === 'timezone' || key === 'all_day') return ['start_date', 'end_date', 'timezone', 'all_day'];
  return [key];
}

export interface Check {
  mismatches: string[];
  /** How many fields were compared. */
  fields: number;
}

/**
 * Compares an event as read with a write: every field the write sent must read as sent; with `previous` (the
 * event before an update), every field it did not send must read as before.
 */
export function checkWrite(event: any, input: Body, previous?: any): Check {
  const out: Check = { mismatches: [], fields: 0 };
  const same = (field: string, actual: unknown, expected: unknown) => {
    out.fields++;
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      out.mismatches.push(`${field}: read ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
    }
  };
  const names = (list: any[]) => list.map((t) => t.name).sort();
  for (const [key, value] of Object.entries(input)) {
    switch (key) {
      case 'description':
        same(key, event.description, `<p>${value}</p>`);
        break;
      case 'start_date':
      case 'end_date': {
        // all-day events span whole days: the dates keep their day, from 00:00:00 to 23:59:59
        const wall = String(value);
        same(key, event[key], input.all_day ? `${wall.slice(0, 10)} ${key === 'start_date' ? '00:00:00' : '23:59:59'}` : wall);
        break;
      }
      case 'cost':
        // (a lone "0" is no cost, as on the original: PHP's empty("0"))
        same(key, event.cost_details.values, value === '' || value === '0' ? [] : [value]);
        break;
      case 'categories':
      case 'tags':
        same(key, names(event[key]), [...(value as string[])].sort());
        break;
      case 'venue':
        if (value === '') same(key, event.venue, []);
        else if (typeof value === 'number') same('venue.id', event.venue?.id, value);
        else for (const f of VENUE_FIELDS) same(`venue.${f}`, event.venue?.[f], (value as Body)[f]);
        break;
      case 'organizer': {
        const sent = value as (number | Body)[];
        same('organizer.length', event.organizer.length, sent.length);
        sent.forEach((o, j) => {
          if (typeof o === 'number') same(`organizer[${j}].id`, event.organizer[j]?.id, o);
          else for (const f of ORGANIZER_FIELDS) same(`organizer[${j}].${f}`, event.organizer[j]?.[f], o[f]);
        });
        break;
      }
      default:
        same(key, event[key], value);
    }
  }
  if (previous !== undefined) {
    const now = fieldsOf(event);
    const before = fieldsOf(previous);
    const sent = new Set(Object.keys(input).flatMap(fieldsSetBy));
    for (const field of Object.keys(before)) if (!sent.has(field)) same(`${field} (not sent)`, now[field], before[field]);
  }
  return out;
}

/** Compares two reads of one event field by field (an acknowledged write against a read after a restart). */
export function compareReads(actual: any, expected: any): Check {
  const out: Check = { mismatches: [], fields: 0 };
  const a = fieldsOf(actual);
  const e = fieldsOf(expected);
  for (const field of Object.keys(e)) {
    out.fields++;
    if (JSON.stringify(a[field]) !== JSON.stringify(e[field])) {
      out.mismatches.push(`${field}: read ${JSON.stringify(a[field])}, acknowledged ${JSON.stringify(e[field])}`);
    }
  }
  return out;
}

export { ORGANIZER_FIELDS, VENUE_FIELDS };
