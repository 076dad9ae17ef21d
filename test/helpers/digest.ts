/**
 * Digests of stored rows, to prove that a refused request changed nothing and that an allowed one changed
 * what it should: of every table of the database (the fuzzer), or of the rows that make up one post (the
 * authorization matrix).
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Storage } from '../../src/storage/storage.js';

const tableLists = new WeakMap<Storage, string[]>();

/**
 * Every table of the test's database, read from the catalogue rather than listed here, so a table a later
 * migration adds is covered without anyone remembering to add it.
 */
async function tablesOf(storage: Storage): Promise<string[]> {
  const known = tableLists.get(storage);
  if (known) return known;
  const { rows } =
    storage.dialect.name === 'postgres'
      ? await sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(
          storage.db,
        )
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(storage.db);
  const names = rows.map((r) => r.name).sort();
  if (names.length === 0) throw new Error('no tables found to digest');
  tableLists.set(storage, names);
  return names;
}

/**
 * A hash of every row of every table (rows sorted, so the order a database returns them in does not matter).
 * PostgreSQL hashes in one round trip (its own row text, ordered); SQLite, in process, reads the rows.
 */
export async function databaseDigest(storage: Storage): Promise<string> {
  const tables = await tablesOf(storage);
  if (storage.dialect.name === 'postgres') {
    const perTable = tables.map(
      (table) => sql`select ${table} as name, md5(coalesce(string_agg(r::text, '|' order by r::text), '')) as hash from ${sql.table(table)} r`,
    );
    const { rows } = await sql<{ name: string; hash: string }>`${sql.join(perTable, sql` union all `)}`.execute(storage.db);
    return createHash('sha1')
      .update(
        rows
          .map((r) => `${r.name}:${r.hash}`)
          .sort()
          .join('\n'),
      )
      .digest('hex');
  }
  const hash = createHash('sha1');
  for (const table of tables) {
    const { rows } = await sql`select * from ${sql.table(table)}`.execute(storage.db);
    hash.update(
      `${table}:${rows
        .map((r) => JSON.stringify(r))
        .sort()
        .join('\n')}\n`,
    );
  }
  return hash.digest('hex');
}

/**
 * The rows that make up one post, as readable text (a failing comparison shows what moved): its posts row,
 * its details row (events, venues or organizers), its term relationships and the terms' rows (their counts),
 * the organizer links it is on either side of, and the events that name it as their venue.
 */
export async function postDigest(storage: Storage, id: number): Promise<string> {
  const lines = (label: string, rows: unknown[]) =>
    `${label}: ${rows
      .map((r) => JSON.stringify(r))
      .sort()
      .join(' | ')}`;
  if (storage.dialect.name === 'postgres') {
    // one round trip (the same rows as below, as JSON): a matrix cell takes two digests
    const agg = (from: ReturnType<typeof sql>) => sql`(select coalesce(json_agg(r), '[]') from ${from})`;
    const { rows } = await sql<Record<string, unknown[]>>`select
      ${agg(sql`posts r where r.id = ${id}`)} as post,
      ${agg(sql`events r where r.post_id = ${id}`)} as event,
      ${agg(sql`venues r where r.post_id = ${id}`)} as venue,
      ${agg(sql`organizers r where r.post_id = ${id}`)} as organizer,
      ${agg(sql`term_relationships r where r.post_id = ${id}`)} as relationships,
      ${agg(sql`terms r where r.id in (select term_id from term_relationships where post_id = ${id})`)} as terms,
      ${agg(sql`event_organizers r where r.event_id = ${id} or r.organizer_id = ${id}`)} as links,
      ${agg(sql`(select post_id from events where venue_id = ${id}) r`)} as venue_of`.execute(storage.db);
    const row = rows[0];
    return [
      lines('post', row.post),
      lines('details', [...row.event, ...row.venue, ...row.organizer]),
      lines('term relationships', row.relationships),
      lines('terms', row.terms),
      lines('organizer links', row.links),
      lines('venue of events', row.venue_of),
    ].join('\n');
  }
  const db = storage.db;
  const [post, event, venue, organizer, relationships, links, venueOf] = await Promise.all([
    db.selectFrom('posts').selectAll().where('id', '=', id).execute(),
    db.selectFrom('events').selectAll().where('post_id', '=', id).execute(),
    db.selectFrom('venues').selectAll().where('post_id', '=', id).execute(),
    db.selectFrom('organizers').selectAll().where('post_id', '=', id).execute(),
    db.selectFrom('term_relationships').selectAll().where('post_id', '=', id).execute(),
    db
      .selectFrom('event_organizers')
      .selectAll()
      .where((eb) => eb.or([eb('event_id', '=', id), eb('organizer_id', '=', id)]))
      .execute(),
    db.selectFrom('events').select('post_id').where('venue_id', '=', id).execute(),
  ]);
  const termIds = relationships.map((r) => r.term_id);
  const terms = termIds.length === 0 ? [] : await db.selectFrom('terms').selectAll().where('id', 'in', termIds).execute();
  return [
    lines('post', post),
    lines('details', [...event, ...venue, ...organizer]),
    lines('term relationships', relationships),
    lines('terms', terms),
    lines('organizer links', links),
    lines('venue of events', venueOf),
  ].join('\n');
}

/** The rows of one term: its terms row and its relationships. */
export async function termDigest(storage: Storage, id: number): Promise<string> {
  const db = storage.db;
  const [term, relationships] = await Promise.all([
    db.selectFrom('terms').selectAll().where('id', '=', id).execute(),
    db.selectFrom('term_relationships').selectAll().where('term_id', '=', id).execute(),
  ]);
  return [
    `term: ${JSON.stringify(term)}`,
    `relationships: ${relationships
      .map((r) => JSON.stringify(r))
      .sort()
      .join(' | ')}`,
  ].join('\n');
}
