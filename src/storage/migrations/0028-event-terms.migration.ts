import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import { HIERARCHICAL_TAXONOMY } from '../dialects/event-terms-sql.js';
import type { Migration } from './migrator.js';

/**
 * `event_terms`: a row for each event (not series masters: they are not listed) and each term it is filed under
 * — every term it is linked to (its own links, or its series' when it shares them, `events.shared_terms`) and
 * every ancestor category of those — with the event's status, hidden flag and dates. `term_ancestors`: each
 * term and its ancestor categories, itself included (tags have none). Both kept by triggers on `terms`,
 * `term_relationships` and `events` (Dialect.createEventTermTriggers).
 *
 * A category filter lists the events linked to the category or to any of its descendants. Asked of the links,
 * that is a lookup per event of every term in the group (at 1M events category-1's 36,582 events of the default
 * window cost ~100 ms to count, and the page built an IN list of its 80,000 links). Here it is one range of an
 * index: the rows of the category, of a status, not hidden, from a start date — counted without reading an event,
 * and an event's membership one key lookup (bench/README.md "Session 28").
 *
 * One race is left on PostgreSQL: a category moved under another parent while a concurrent transaction files an
 * event under it (or under a category below it) — each sees the other's work only after it commits — leaves that
 * event filed under the old ancestors until it or its links are written again. Locks to order the two would put
 * every event write behind an advisory lock taken before its term counts' row locks (a round trip each), for a
 * change of the category tree that sites make rarely; SQLite's writers take turns and cannot race so.
 */
export const eventTerms: Migration = {
  name: '0028-event-terms',
  async up(db: Kysely<any>, dialect: Dialect) {
    const postgres = dialect.name === 'postgres';
    // (PostgreSQL: a table with trigger events queued by an earlier migration of this run takes no new trigger)
    if (postgres) await sql`set constraints all immediate`.execute(db);
    const key = (type: string) => sql.raw(postgres ? `${type} collate "C"` : type);
    await sql`
      create table term_ancestors (
        term_id integer not null, ancestor_id integer not null,
        constraint term_ancestors_pk primary key (term_id, ancestor_id)
      ) ${sql.raw(postgres ? '' : 'without rowid')}`.execute(db);
    await sql`create index term_ancestors_by_ancestor on term_ancestors (ancestor_id, term_id)`.execute(db);
    await sql`
      create table event_terms (
        term_id integer not null, post_id integer not null,
        status ${key('varchar(20)')} not null, hidden integer not null,
        start_date ${key('varchar(19)')} not null, end_date ${key('varchar(19)')} not null,
        constraint event_terms_pk primary key (post_id, term_id)
      ) ${sql.raw(postgres ? '' : 'without rowid')}`.execute(db);
    // by the key: an event's rows (rewritten when it or its links change), whether it is filed under a term; by
    // this index, a list's count and walk: a term's events of some statuses, listed or not, from a start date
    // (covering; two trees a row, each create writes a few rows)
    await sql`create index event_terms_listing on event_terms (term_id, hidden, status, start_date, end_date, post_id)`.execute(db);
    await rebuildEventTerms(db);
    await dialect.createEventTermTriggers(db);
  },
};

/**
 * Fills both tables again from the terms, the links and the events (this migration; bulk loads, which drop the
 * triggers while they write). Ancestors only through parents of the same taxonomy that exist, as the filter's
 * tree reads them; `union` ends a cycle.
 */
export async function rebuildEventTerms(db: Kysely<any>): Promise<void> {
  await sql`delete from event_terms`.execute(db);
  await sql`delete from term_ancestors`.execute(db);
  await sql`
    with recursive up (term_id, ancestor_id) as (
      select id, id from terms
      union
      select up.term_id, p.id from up
      join terms t on t.id = up.ancestor_id
      join terms p on p.id = t.parent_id and p.taxonomy = t.taxonomy
      where t.taxonomy = ${HIERARCHICAL_TAXONOMY}
    )
    insert into term_ancestors (term_id, ancestor_id) select term_id, ancestor_id from up`.execute(db);
  await sql`
    insert into event_terms (term_id, post_id, status, hidden, start_date, end_date)
    select a.ancestor_id, e.post_id, min(e.status), min(e.hide_from_listings), min(e.start_date), min(e.end_date)
    from events e
    join term_relationships r on r.post_id = e.post_id or (e.shared_terms = 1 and r.post_id = e.series_id)
    join term_ancestors a on a.term_id = r.term_id
    where e.kind <> 'series'
    group by a.ancestor_id, e.post_id`.execute(db);
}
