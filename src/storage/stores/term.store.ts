import { type Expression, type ExpressionBuilder, type Kysely, type QueryCreator, type SqlBool, sql } from 'kysely';
import type { SyncCut } from '../../domain/sync/change.js';
import type { Term, TermEntry, TermFields, TermListQuery } from '../../domain/terms/term.js';
import { nowUtc } from '../../time/clock.js';
import type { Database, Taxonomy, TermRow, TermsTable } from '../database.js';
import { columnMap } from './columns.js';

/** The tables a term list sees: with `hide_empty`, the non-empty terms and their ancestors (a recursive CTE). */
type WithVisibleTerms = Database & { visible_terms: { id: number; parent_id: number } };

/** The written columns of `terms` (see columns.ts); ids, counts and stamps are the store's. */
const termColumns = columnMap<TermsTable>()<TermFields>({
  taxonomy: 'taxonomy',
  name: 'name',
  slug: 'slug',
  description: 'description',
  parentId: 'parent_id',
});
type TermFieldsRow = Pick<TermsTable, 'taxonomy' | 'name' | 'slug' | 'description' | 'parent_id'>;

import type { Dialect } from '../dialects/dialect.js';
import { isStorableId, storableIds } from './ids.js';
import { containsFolded } from './like.js';
import { PLAIN_BY_ID } from './plain-occurrences.js';
import { type PlannedRead, planned, runPlanned } from './planned.js';
import { idList, Statement, statementSet } from './statement.js';

/** The statements of the event write path (see Statement). */
const statements = statementSet((dialect: Dialect) => ({
  bySlug: new Statement<TermRow>(dialect, 'select * from terms where taxonomy = ? and slug = ?'),
  // a taxonomy's tree: on every category page (its filter's descendants, see TermService.resolveFilter)
  tree: new Statement<{ id: number; slug: string; parent_id: number }>(dialect, 'select id, slug, parent_id from terms where taxonomy = ?'),
  relate: new Statement(dialect, 'insert into term_relationships (post_id, term_id) values (?, ?)'),
  // a post's terms, their ids as one JSON array (one text whatever their number)
  relateMany: new Statement(
    dialect,
    `insert into term_relationships (post_id, term_id) select ?, cast(value as integer) from ${
      dialect.name === 'postgres' ? 'json_array_elements_text(cast(? as json))' : 'json_each(?)'
    }`,
  ),
  // (a count moved is a term answered otherwise: its modified time moves too, for Last-Modified and modified_after)
  addToCounts: new Statement(dialect, 'update terms set count = count + ?, modified_at = ? where id in :ids'),
  // SQLite (PostgreSQL orders them itself: addToCountsOrdered)
  addToCountsReturning: new Statement<TermRow>(dialect, 'update terms set count = count + ?, modified_at = ? where id in :ids returning *'),
  idsForPost: new Statement<{ term_id: number }>(dialect, 'select term_id from term_relationships where post_id = ?'),
  addToCount: new Statement(dialect, 'update terms set count = count + ?, modified_at = ? where id = ?'),
  // PostgreSQL only (a data-modifying CTE): the updated rows, ordered as forPost reads them. The ids as an
  // integer[] (`= any`), not a JSON array: the planner takes json_array_elements for 100 rows, and updated the
  // few terms of a create through a hash join over every term (4 ms a create with 20,000 tags, 0.1 ms by key)
  addToCountsOrdered: new Statement<TermRow>(
    dialect,
    `with counted as (update terms set count = count + ?, modified_at = ? where id = any(cast(? as integer[])) returning *)
     select * from counted order by lower(name), id`,
  ),
  // (taxonomy, slug) and (taxonomy, id) pairs as two JSON arrays: what an event write's entries name, one text
  // whatever their number (resolveTerms' first lookup, on every create: issue 17)
  bySlugsOrIds: new Statement<TermRow & { lname: string }>(
    dialect,
    dialect.name === 'postgres'
      ? `select t.*, lower(t.name) as lname from json_array_elements(cast(? as json)) j inner join terms t on t.taxonomy = j ->> 0 and t.slug = j ->> 1
         union select t.*, lower(t.name) as lname from json_array_elements(cast(? as json)) j inner join terms t on t.taxonomy = j ->> 0 and t.id = cast(j ->> 1 as integer)
         order by id`
      : `select t.*, lower(t.name) as lname from json_each(?) j inner join terms t on t.taxonomy = j.value ->> 0 and t.slug = j.value ->> 1
         union select t.*, lower(t.name) as lname from json_each(?) j inner join terms t on t.taxonomy = j.value ->> 0 and t.id = j.value ->> 1
         order by id`,
  ),
  forPost: new Statement<TermRow>(
    dialect,
    'select terms.* from terms inner join term_relationships rel on rel.term_id = terms.id where rel.post_id = ? order by lower(terms.name), terms.id',
  ),
  forPosts: new Statement<TermRow & { post_id: number }>(
    dialect,
    `select terms.*, rel.post_id as post_id from terms inner join term_relationships rel on rel.term_id = terms.id
     where rel.post_id in :ids order by lower(terms.name), terms.id`,
  ),
}));

type TermWithCount = TermRow;

/** What one taxonomy's entries of an event write may name (see TermStore.lookup). */
export interface TermLookup {
  readonly taxonomy: Taxonomy;
  readonly ids: readonly number[];
  readonly slugs: readonly string[];
  /** Lower-cased as JavaScript does (the database lower-cases the names it compares them with). */
  readonly names: readonly string[];
}

/** An event write's term entry, as resolveTerms reads it (text trimmed). */
const entryKey = (taxonomy: Taxonomy, entry: TermEntry) =>
  typeof entry === 'object'
    ? `${taxonomy}\u0000name\u0000${entry.name.trim()}`
    : `${taxonomy}\u0000${typeof entry}\u0000${typeof entry === 'string' ? entry.trim() : entry}`;

/** Code point order (SQLite's BINARY collation of UTF-8 text), not UTF-16 units. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i].codePointAt(0) as number) - (y[i].codePointAt(0) as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** SQLite's order of a post's terms (`order by ulower(name), id`), in JavaScript. */
function sortAsRead(terms: Term[]): Term[] {
  return terms.sort((a, b) => compareCodePoints(a.name.toLowerCase(), b.name.toLowerCase()) || a.id - b.id);
}

function toTerm(row: TermWithCount): Term {
  return {
    id: row.id,
    taxonomy: row.taxonomy,
    name: row.name,
    slug: row.slug,
    description: row.description,
    parentId: row.parent_id,
    count: Number(row.count),
    modifiedAt: row.modified_at,
    version: Number(row.version),
  };
}

/** Categories and tags, their parent tree, and their relationships with posts. */
export class TermStore {
  private readonly sql: ReturnType<typeof statements>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {
    this.sql = statements(dialect);
  }

  private withCount(db: QueryCreator<Database> = this.db) {
    return db.selectFrom('terms').selectAll('terms');
  }

  async find(taxonomy: Taxonomy, id: number): Promise<Term | undefined> {
    if (!isStorableId(id)) return undefined;
    const row = await this.withCount().where('terms.taxonomy', '=', taxonomy).where('terms.id', '=', id).executeTakeFirst();
    return row ? toTerm(row as TermWithCount) : undefined;
  }

  async findBySlug(taxonomy: Taxonomy, slug: string): Promise<Term | undefined> {
    const row = await this.sql.bySlug.first(this.db, [taxonomy, slug]);
    return row ? toTerm(row) : undefined;
  }

  /** Case-insensitive name match; `parentId` narrows to one level of the tree (categories). */
  async findByName(taxonomy: Taxonomy, name: string, parentId?: number): Promise<Term | undefined> {
    let q = this.withCount()
      .where('terms.taxonomy', '=', taxonomy)
      .where(this.dialect.lower(sql.ref('terms.name')), '=', name.toLowerCase());
    if (parentId !== undefined) q = q.where('terms.parent_id', '=', parentId);
    const row = await q.orderBy('terms.id').executeTakeFirst();
    return row ? toTerm(row as TermWithCount) : undefined;
  }

  /** Which of these slugs terms of the taxonomy already have. */
  async takenSlugs(taxonomy: Taxonomy, candidates: readonly string[], excludeId?: number): Promise<Set<string>> {
    let q = this.db
      .selectFrom('terms')
      .select('slug')
      .where('taxonomy', '=', taxonomy)
      .where('slug', 'in', [...candidates]);
    if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
    return new Set((await q.execute()).map((r) => r.slug));
  }

  /** Stores a new term (stamped now); returns its id. */
  async create(term: TermFields): Promise<number> {
    return (await this.createTerm(term)).id;
  }

  /** Stores a new term (stamped now); returns it as stored. */
  async createTerm(term: TermFields): Promise<Term> {
    this.resolved?.clear();
    const now = nowUtc();
    const row = await this.db
      .insertInto('terms')
      .values({ ...(termColumns.toRow(term) as TermFieldsRow), created_at: now, modified_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toTerm(row as TermWithCount);
  }

  /**
   * In one statement, every term of these taxonomies that one of the ids, slugs or lower-cased names names
   * (what an event write's term entries may match), each with its name as the database lower-cases it (`lname`:
   * a name matched exactly when `lname` equals the entry lower-cased, as findByName compares).
   */
  async lookup(requests: readonly TermLookup[]): Promise<(Term & { lname: string })[]> {
    // an id no row can have (2.5, 2147483648, 1e20) names no term: not sent (PostgreSQL refuses it, see ids.ts)
    const wanted = requests.map((r) => ({ ...r, ids: storableIds(r.ids) })).filter((r) => r.ids.length + r.slugs.length + r.names.length > 0);
    if (wanted.length === 0) return [];
    if (wanted.every((r) => r.names.length === 0)) {
      const pairs = (of: (r: TermLookup) => readonly (number | string)[]) =>
        JSON.stringify(wanted.flatMap((r) => [...new Set(of(r))].map((value) => [r.taxonomy, value])));
      const rows = await this.sql.bySlugsOrIds.all(this.db, [pairs((r) => r.slugs), pairs((r) => r.ids)]);
      return rows.map((row) => ({ ...toTerm(row), lname: String(row.lname) }));
    }
    return this.lookupNow(wanted);
  }

  /**
   * Inside a transaction that is rolled back whole should anything fail (an import batch): what an event write's
   * term entry resolved to is remembered (see resolveTerms) until a term is written. (Their counts may be older
   * than the rows': writes take counts from addToCounts or findOrdered.)
   */
  remember(): void {
    this.resolved ??= new Map();
  }

  private resolved: Map<string, Term> | undefined;

  /** The term an entry resolved to earlier in this transaction (when remembering). */
  resolvedEntry(taxonomy: Taxonomy, entry: TermEntry): Term | undefined {
    return this.resolved?.get(entryKey(taxonomy, entry));
  }

  rememberEntry(taxonomy: Taxonomy, entry: TermEntry, term: Term): void {
    this.resolved?.set(entryKey(taxonomy, entry), term);
  }

  private async lookupNow(wanted: readonly TermLookup[]): Promise<(Term & { lname: string })[]> {
    const rows = await this.withCount()
      .select(this.dialect.lower(sql.ref('terms.name')).as('lname'))
      .where((eb) =>
        eb.or(
          wanted.map((r) => {
            const any: Expression<SqlBool>[] = [];
            if (r.ids.length > 0) any.push(eb('terms.id', 'in', [...new Set(r.ids)]));
            if (r.slugs.length > 0) any.push(eb('terms.slug', 'in', [...new Set(r.slugs)]));
            if (r.names.length > 0) any.push(eb(this.dialect.lower(sql.ref('terms.name')), 'in', [...new Set(r.names)]));
            return eb.and([eb('terms.taxonomy', '=', r.taxonomy), eb.or(any)]);
          }),
        ),
      )
      .orderBy('terms.id')
      .execute();
    return rows.map((row) => ({ ...toTerm(row as TermWithCount), lname: String((row as { lname: unknown }).lname) }));
  }

  /**
   * Writes a term's fields; its version moves on. `ifVersion`: only while it is at that version (a conditional
   * write) — answers false, having written nothing, when it is not.
   */
  async update(id: number, patch: Partial<TermFields>, ifVersion?: number): Promise<boolean> {
    this.resolved?.clear();
    const written = await this.db
      .updateTable('terms')
      .set((eb) => ({ ...termColumns.toRow(patch), modified_at: nowUtc(), version: eb('version', '+', 1) }))
      .where('id', '=', id)
      .$if(ifVersion !== undefined, (q) => q.where('version', '=', ifVersion as number))
      .executeTakeFirst();
    return Number(written.numUpdatedRows) > 0;
  }

  /** Marks terms written (their version and modified time move on) when what they show changed with another's write. */
  async touch(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    this.resolved?.clear();
    await this.db
      .updateTable('terms')
      .set((eb) => ({ modified_at: nowUtc(), version: eb('version', '+', 1) }))
      .where('id', 'in', [...ids])
      .execute();
  }

  /**
   * Deletes a term: its children move up to its parent; its post relationships go with it. `ifVersion`: see
   * update (false: the term had moved on, and the caller's transaction must not commit what was done).
   */
  async remove(term: Term, ifVersion?: number): Promise<boolean> {
    this.resolved?.clear();
    await this.db
      .updateTable('terms')
      .set({ parent_id: term.parentId })
      .where('taxonomy', '=', term.taxonomy)
      .where('parent_id', '=', term.id)
      .execute();
    await this.db.deleteFrom('term_relationships').where('term_id', '=', term.id).execute();
    const deleted = await this.db
      .deleteFrom('terms')
      .where('id', '=', term.id)
      .$if(ifVersion !== undefined, (q) => q.where('version', '=', ifVersion as number))
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  /** Ids of the given ones that are terms of the taxonomy. */
  async existingIds(taxonomy: Taxonomy, wanted: readonly number[]): Promise<Set<number>> {
    const ids = storableIds(wanted);
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('terms')
      .select('id')
      .where('taxonomy', '=', taxonomy)
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /** id → (slug, parent) of every term of the taxonomy: enough to build category paths. */
  async tree(taxonomy: Taxonomy): Promise<Map<number, { slug: string; parentId: number }>> {
    const rows = await this.sql.tree.all(this.db, [taxonomy]);
    return new Map(rows.map((r) => [Number(r.id), { slug: r.slug, parentId: Number(r.parent_id) }]));
  }

  /** What a sync of a taxonomy shows (FEATURES.md §2.3): its terms by id, after `afterId` (at most `limit`), or those of `ids`. */
  async syncTerms(taxonomy: Taxonomy, cut: SyncCut): Promise<Term[]> {
    let q = this.withCount().where('terms.taxonomy', '=', taxonomy);
    q = 'ids' in cut ? q.where('terms.id', 'in', this.dialect.jsonIds(cut.ids)) : q.where('terms.id', '>', cut.afterId).limit(cut.limit);
    const rows = await q.orderBy('terms.id').execute();
    return rows.map((r) => toTerm(r as TermWithCount));
  }

  async list(taxonomy: Taxonomy, query: TermListQuery): Promise<{ terms: Term[]; total: number }> {
    const filters = (eb: ExpressionBuilder<WithVisibleTerms, 'terms'>): Expression<SqlBool> => {
      const conditions: Expression<SqlBool>[] = [eb('terms.taxonomy', '=', taxonomy)];
      if (query.search !== undefined) {
        conditions.push(
          eb.or([
            containsFolded(this.dialect, sql.ref('terms.name'), query.search.toLowerCase()),
            containsFolded(this.dialect, sql.ref('terms.slug'), query.search.toLowerCase()),
          ]),
        );
      }
      if (query.include && query.include.length > 0) conditions.push(eb('terms.id', 'in', [...query.include]));
      if (query.exclude && query.exclude.length > 0) conditions.push(eb('terms.id', 'not in', [...query.exclude]));
      if (query.parent !== undefined) conditions.push(eb('terms.parent_id', '=', query.parent));
      if (query.slug !== undefined) conditions.push(eb('terms.slug', '=', query.slug));
      if (query.modifiedAfter !== undefined) conditions.push(eb('terms.modified_at', '>', query.modifiedAfter));
      if (query.modifiedBefore !== undefined) conditions.push(eb('terms.modified_at', '<', query.modifiedBefore));
      if (query.post !== undefined) {
        const post = query.post;
        // an occurrence without terms of its own carries its series' (a plain one has no events row: migration 0023)
        const carrier = eb.fn.coalesce(
          eb.selectFrom('events').select('series_id').where('post_id', '=', post).where('shared_terms', '=', 1),
          eb
            .selectFrom('occurrences as o')
            .select('o.series_id')
            .where('o.id', '=', post)
            .where(sql<SqlBool>`${sql.raw(PLAIN_BY_ID)}`),
          eb.val(post),
        );
        conditions.push(eb('terms.id', 'in', eb.selectFrom('term_relationships').select('term_id').where('post_id', '=', carrier)));
      }
      if (query.hideEmpty) {
        conditions.push(eb('terms.id', 'in', eb.selectFrom('visible_terms').select('visible_terms.id')));
      }
      return eb.and(conditions);
    };

    // Non-empty terms and, in a hierarchy, every ancestor of one (WordPress shows an empty parent of a
    // non-empty child).
    const withVisible = <Q>(build: (db: QueryCreator<WithVisibleTerms>) => Q): Q => {
      // without hide_empty no condition names `visible_terms`, so the query needs no such table
      if (!query.hideEmpty) return build(this.db as unknown as QueryCreator<WithVisibleTerms>);
      const db = this.db.withRecursive('visible_terms(id, parent_id)', (qb) =>
        qb
          .selectFrom('terms as t')
          .select(['t.id', 't.parent_id'])
          .where('t.taxonomy', '=', taxonomy)
          .where('t.count', '>', 0)
          .union((qb2) => qb2.selectFrom('terms as t2').innerJoin('visible_terms as v', 'v.parent_id', 't2.id').select(['t2.id', 't2.parent_id'])),
      );
      return build(db);
    };

    const totalRow = await withVisible((db) =>
      db
        .selectFrom('terms')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where(filters)
        .executeTakeFirstOrThrow(),
    );
    const total = Number(totalRow.n);

    const direction = query.order;
    const rows = await withVisible((db) => {
      let q = db.selectFrom('terms').selectAll('terms').where(filters);
      switch (query.orderby) {
        case 'id':
        case 'term_id':
        case 'term_group':
        case 'term_order':
        case 'none':
          q = q.orderBy('terms.id', direction);
          break;
        case 'slug':
          q = q.orderBy('terms.slug', direction);
          break;
        case 'count':
          q = q.orderBy('count', direction);
          break;
        case 'parent':
          q = q.orderBy('terms.parent_id', direction);
          break;
        case 'description':
          q = q.orderBy(this.dialect.lower(sql.ref('terms.description')), direction);
          break;
        case 'include':
          if (query.include && query.include.length > 0) {
            const cases = sql.join(
              query.include.map((id, i) => sql`when ${id} then ${i}`),
              sql` `,
            );
            q = q.orderBy(sql`case terms.id ${cases} else ${query.include.length} end`);
          }
          break;
        default:
          q = q.orderBy(this.dialect.lower(sql.ref('terms.name')), direction);
      }
      const offset = query.offset ?? (query.page - 1) * query.perPage;
      return q.orderBy('terms.id', 'asc').limit(query.perPage).offset(offset).execute();
    });
    return { terms: (rows as TermWithCount[]).map(toTerm), total };
  }

  /** Terms of each post, ordered by name (WordPress' order for post terms). One query for any number of posts. */
  forPosts(postIds: readonly number[]): Promise<Map<number, Term[]>> {
    return runPlanned(this.db, this.forPostsPlan(postIds));
  }

  /** forPosts, planned (to run with other reads: Storage.readTogether). */
  forPostsPlan(postIds: readonly number[]): PlannedRead<Map<number, Term[]>> {
    const ids = [...new Set(postIds)];
    const query =
      ids.length === 0 ? undefined : ids.length === 1 ? this.sql.forPost.compile([ids[0]]) : this.sql.forPosts.compile([idList(this.dialect, ids)]);
    return planned(query, (rows) => {
      const result = new Map<number, Term[]>();
      if (ids.length === 1) {
        if (rows.length > 0) result.set(ids[0], (rows as TermRow[]).map(toTerm));
        return result;
      }
      for (const row of rows as (TermWithCount & { post_id: number })[]) {
        const postId = Number(row.post_id);
        const list = result.get(postId);
        if (list) list.push(toTerm(row));
        else result.set(postId, [toTerm(row)]);
      }
      return result;
    });
  }

  /** The term ids a post carries (both taxonomies). */
  async idsForPost(postId: number): Promise<number[]> {
    const rows = await this.sql.idsForPost.all(this.db, [postId]);
    return rows.map((r) => Number(r.term_id));
  }

  /** Adds each delta to its term's count (one statement per distinct delta). */
  async adjustCounts(deltas: ReadonlyMap<number, number>): Promise<void> {
    const byDelta = new Map<number, number[]>();
    for (const [id, delta] of deltas) {
      if (delta === 0) continue;
      byDelta.set(delta, [...(byDelta.get(delta) ?? []), id]);
    }
    for (const [delta, ids] of byDelta) {
      if (ids.length === 1) {
        await this.sql.addToCount.run(this.db, [delta, nowUtc(), ids[0]]);
        continue;
      }
      await this.sql.addToCounts.run(this.db, [delta, nowUtc(), idList(this.dialect, ids)]);
    }
  }

  /**
   * Adds one delta to these terms' counts and answers with the terms as they are then, in the order a post's
   * terms are read in (forPosts: by lower-cased name, then id) — the terms of a new event without reading them
   * again. PostgreSQL orders them itself (its collation decides); SQLite's `ulower` is JavaScript's lower-casing
   * compared byte by byte, which is what the sort here does.
   */
  async addToCounts(ids: readonly number[], delta: number): Promise<Term[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    if (this.dialect.name === 'postgres') {
      const rows = await this.sql.addToCountsOrdered.all(this.db, [delta, nowUtc(), `{${unique.map((id) => Math.trunc(id)).join(',')}}`]);
      return rows.map(toTerm);
    }
    const rows = await this.sql.addToCountsReturning.all(this.db, [delta, nowUtc(), idList(this.dialect, unique)]);
    return sortAsRead(rows.map(toTerm));
  }

  /** These terms, in the order a post's terms are read in (see addToCounts). */
  async findOrdered(ids: readonly number[]): Promise<Term[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const rows = await this.withCount()
      .where('terms.id', 'in', unique)
      .orderBy(this.dialect.lower(sql.ref('terms.name')))
      .orderBy('terms.id')
      .execute();
    return rows.map((r) => toTerm(r as TermWithCount));
  }

  /** Recounts from scratch (repairs, imports and tests that write relationships directly). */
  async recount(): Promise<void> {
    const counted = (eb: ExpressionBuilder<Database, 'terms'>) =>
      eb
        .selectFrom('term_relationships as tr')
        .innerJoin('posts as p', 'p.id', 'tr.post_id')
        .whereRef('tr.term_id', '=', 'terms.id')
        .where('p.type', '=', 'event')
        .where('p.status', '=', 'publish')
        // a series counts once: its occurrences (their own terms are an exception's) do not
        .where('p.parent_id', '=', 0)
        .select((e) => e.fn.countAll<number>().as('n'));
    // (only the terms whose count was wrong: they, and their modified time, change)
    await this.db
      .updateTable('terms')
      .set((eb) => ({ count: counted(eb), modified_at: nowUtc() }))
      .where((eb) => eb('count', '<>', counted(eb)))
      .execute();
  }

  /** Relates a new post (it has no terms yet) to these terms of any taxonomy, in one statement. */
  async relateNew(postId: number, termIds: readonly number[]): Promise<void> {
    const unique = [...new Set(termIds)];
    if (unique.length === 1) await this.sql.relate.run(this.db, [postId, unique[0]]);
    else if (unique.length > 1) await this.sql.relateMany.run(this.db, [postId, JSON.stringify(unique)]);
  }

  /** Replaces the post's terms of one taxonomy (`fresh`: the post has none yet). */
  async setForPost(postId: number, taxonomy: Taxonomy, termIds: readonly number[], fresh = false): Promise<void> {
    if (!fresh) {
      await this.db
        .deleteFrom('term_relationships')
        .where('post_id', '=', postId)
        .where('term_id', 'in', (eb) => eb.selectFrom('terms').select('id').where('taxonomy', '=', taxonomy))
        .execute();
    }
    await this.relateNew(postId, termIds);
  }
}
