import type { Dialect } from '../dialects/dialect.js';

/**
 * Plain occurrences (migration 0023): an occurrence that follows its series in everything but its dates is a
 * row of `occurrences` only, and reads its series' post, details and links. What every read of them shares.
 */

/** The condition of the partial indexes over plain occurrences (migration 0023), spelt as in them (literals: see UNIQUE_SLUG_CONDITION in event.store.ts). */
export const PLAIN = "o.own_rows = 0 and o.state = 'active'";

/**
 * The same condition, for reads of occurrences by id, spelt so that it does not imply the partial indexes'
 * (`< 1`, not `= 0`): then the primary key is the only index a planner can read them by. With PLAIN, PostgreSQL's
 * generic plan of a read of one occurrence walked all of occurrences_series_start for its id (its third column)
 * while the table had no statistics yet, after a million occurrences were written (31 ms a read, against 1.2).
 */
export const PLAIN_BY_ID = "o.own_rows < 1 and o.state = 'active'";

/**
 * Plain occurrences as `events` rows (migration 0023): their own id, status, hidden flag and dates, their
 * master's zone, all-day flag and details, kind `occurrence`, sharing the master's terms. A read names it
 * `events` and joins the master's post as `posts` (on `events.series_id`), so that the filters of a list read
 * the same columns on both sides of it. `ofSeries`: the occurrences of that series only (a column of a lateral
 * join's left side); `byId`: for reads by id (see PLAIN_BY_ID).
 *
 * PostgreSQL: its constants have exactly the types (and collations) of `events`' columns, so that a union of
 * both in a subquery is an "append relation" its planner merges in order from each side's index (a page of
 * the default list: Merge Append, a few rows read); with a cast in the union it sorted every row of the window.
 */
export function plainEvents(dialect: Pick<Dialect, 'name'>, options: { ofSeries?: string; byId?: boolean } = {}): string {
  const pg = dialect.name === 'postgres';
  const kind = pg ? `cast('occurrence' as varchar(12)) collate "C"` : `'occurrence'`;
  const uid = pg ? 'cast(null as varchar(255))' : 'null';
  return `(select o.id as post_id, o.status, o.start_date, o.end_date, o.start_utc, o.end_utc, m.timezone, o.timezone_abbr,
  m.all_day, m.cost, m.currency_symbol, m.currency_code, m.currency_position, m.website, m.show_map, m.show_map_link,
  o.hidden as hide_from_listings, m.featured, m.venue_id, ${kind} as kind, o.series_id, ${uid} as ical_uid, 0 as ical_sequence,
  m.custom_fields, 1 as shared_terms, m.links_modified_utc
  from occurrences o inner join events m on m.post_id = o.series_id where ${options.byId ? PLAIN_BY_ID : PLAIN}${options.ofSeries ? ` and o.series_id = ${options.ofSeries}` : ''})`;
}
