/**
 * Every row of the tables a write can touch, to compare a database before and after: "nothing of a failed write
 * remains" is then "the snapshots are equal", and "only these writes landed" is "the difference is exactly
 * their rows". Rows are compared whole (JSON), so a changed counter shows as its old row removed and its new
 * row added.
 */
import { type Kysely, sql } from 'kysely';

/** Posts and their details, links, terms, counts and the day counts kept by triggers. */
export const WRITE_TABLES = [
  'posts',
  'events',
  'venues',
  'organizers',
  'images',
  'event_organizers',
  'terms',
  'term_relationships',
  'event_day_counts',
  'event_month_counts',
] as const;

export type Row = Record<string, unknown>;
export type Snapshot = Record<string, Row[]>;

export async function snapshot(db: Kysely<any>, tables: readonly string[] = WRITE_TABLES): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const table of tables) {
    const { rows } = await sql<Row>`select * from ${sql.table(table)}`.execute(db);
    out[table] = rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  return out;
}

export interface TableDiff {
  added: Row[];
  removed: Row[];
}

/** Per table, the rows only in `after` and the rows only in `before`; tables that did not change are left out. */
export function diffSnapshots(before: Snapshot, after: Snapshot): Record<string, TableDiff> {
  const out: Record<string, TableDiff> = {};
  for (const table of Object.keys(after)) {
    const left = new Map<string, number>();
    for (const r of before[table] ?? []) left.set(JSON.stringify(r), (left.get(JSON.stringify(r)) ?? 0) + 1);
    const added: Row[] = [];
    for (const r of after[table]) {
      const key = JSON.stringify(r);
      const n = left.get(key) ?? 0;
      if (n > 0) left.set(key, n - 1);
      else added.push(r);
    }
    const removed: Row[] = [];
    for (const [key, n] of left) for (let i = 0; i < n; i++) removed.push(JSON.parse(key));
    if (added.length > 0 || removed.length > 0) out[table] = { added, removed };
  }
  return out;
}

/** The day counts as the triggers should have kept them: a recount from the events themselves. */
export async function recountedDayCounts(db: Kysely<any>): Promise<Row[]> {
  const { rows } = await sql<Row>`
    select status, hide_from_listings as hidden, substr(start_date, 1, 10) as start_day, substr(end_date, 1, 10) as end_day, count(*) as n
    from events
    group by status, hide_from_listings, substr(start_date, 1, 10), substr(end_date, 1, 10)`.execute(db);
  return normalizeCounts(rows, 'start_day', 'end_day');
}

export async function storedDayCounts(db: Kysely<any>): Promise<Row[]> {
  const { rows } = await sql<Row>`select status, hidden, start_day, end_day, n from event_day_counts where n <> 0`.execute(db);
  return normalizeCounts(rows, 'start_day', 'end_day');
}

/** `event_month_counts`' non-zero rows. */
export async function storedMonthCounts(db: Kysely<any>): Promise<Row[]> {
  const { rows } = await sql<Row>`select status, hidden, start_month, end_month, n from event_month_counts where n <> 0`.execute(db);
  return normalizeCounts(rows, 'start_month', 'end_month');
}

/** What `event_month_counts` should hold: the day counts summed by start and end month. */
export async function monthsOfDayCounts(db: Kysely<any>): Promise<Row[]> {
  const { rows } = await sql<Row>`
    select status, hidden, substr(start_day, 1, 7) as start_month, substr(end_day, 1, 7) as end_month, sum(n) as n from event_day_counts
    group by status, hidden, substr(start_day, 1, 7), substr(end_day, 1, 7) having sum(n) <> 0`.execute(db);
  return normalizeCounts(rows, 'start_month', 'end_month');
}

/** Rows of a count table (day or month counts) in one form and order, whatever the driver gave. */
function normalizeCounts(rows: Row[], start: string, end: string): Row[] {
  return rows
    .map((r) => ({ status: String(r.status), hidden: Number(r.hidden), [start]: String(r[start]), [end]: String(r[end]), n: Number(r.n) }))
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}
