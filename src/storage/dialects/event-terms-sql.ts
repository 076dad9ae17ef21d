/**
 * The statements both dialects' triggers keep `event_terms` with (migration 0028), as SQL text: each dialect wraps
 * them in its own trigger bodies (SQLite's `new.`/`old.` rows, PostgreSQL's functions over arrays of ids).
 */

/** The taxonomy whose terms have parents that a list filter follows (TermService.resolveFilter's descendants). */
export const HIERARCHICAL_TAXONOMY = 'tribe_events_cat';

const COLUMNS = 'term_id, post_id, status, hidden, start_date, end_date';
const VALUES = 'a.ancestor_id, e.post_id, e.status, e.hide_from_listings, e.start_date, e.end_date';

/**
 * Adds the rows of events: `own`, a condition on `e`, picks the events whose own links count; `shared`, the
 * events that carry their series' links (`shared_terms`); `link`, a further condition on the link `r`. Rows
 * already there stay (an event reaches an ancestor through several of its terms).
 */
export function addEventTerms(own: string, shared: string, link = 'true'): string {
  return `
    insert into event_terms (${COLUMNS})
    select ${VALUES} from events e
    join term_relationships r on r.post_id = e.post_id join term_ancestors a on a.term_id = r.term_id
    where ${own} and ${link} and e.kind <> 'series'
    on conflict do nothing;
    insert into event_terms (${COLUMNS})
    select ${VALUES} from events e
    join term_relationships r on r.post_id = e.series_id join term_ancestors a on a.term_id = r.term_id
    where ${shared} and e.shared_terms = 1 and ${link} and e.kind <> 'series'
    on conflict do nothing;`;
}

/** Rewrites the rows of the events whose ids `ids` (a condition on a column, e.g. `in (…)`) picks. */
export function refillEventTerms(ids: (column: string) => string): string {
  return `delete from event_terms where ${ids('post_id')}; ${addEventTerms(ids('e.post_id'), ids('e.post_id'))}`;
}

/**
 * The events whose rows depend on the links of the posts `posts` (SQL: a value or a subquery): their own, and the
 * occurrences that share their terms.
 */
export const eventsLinkedThrough = (posts: string) =>
  `select post_id from events where post_id in (${posts}) union all select post_id from events where series_id in (${posts}) and shared_terms = 1`;

/** The events whose rows depend on the terms under `term` (SQL), its own included. */
export const eventsUnderTerm = (term: string) =>
  eventsLinkedThrough(
    `select r.post_id from term_relationships r where r.term_id in (select term_id from term_ancestors where ancestor_id = ${term})`,
  );

/** Moves a category's subtree under its new parent in `term_ancestors` (SQL; `term`, `parent`, `taxonomy`: the row's). */
export function moveAncestors(term: string, parent: string, taxonomy: string): string {
  return `
    delete from term_ancestors
    where term_id in (select term_id from term_ancestors where ancestor_id = ${term})
      and ancestor_id in (select ancestor_id from term_ancestors where term_id = ${term} and ancestor_id <> ${term});
    insert into term_ancestors (term_id, ancestor_id)
    select d.term_id, a.ancestor_id from term_ancestors d, term_ancestors a
    where d.ancestor_id = ${term} and a.term_id = ${parent} and ${taxonomy} = '${HIERARCHICAL_TAXONOMY}'
      and exists (select 1 from terms p where p.id = ${parent} and p.taxonomy = ${taxonomy})
    on conflict do nothing;`;
}

/** A new term's rows in `term_ancestors`: itself, and its parent's ancestors when it is a category. */
export function addAncestors(term: string, parent: string, taxonomy: string): string {
  return `
    insert into term_ancestors (term_id, ancestor_id) values (${term}, ${term}) on conflict do nothing;
    insert into term_ancestors (term_id, ancestor_id)
    select ${term}, a.ancestor_id from term_ancestors a
    where a.term_id = ${parent} and ${taxonomy} = '${HIERARCHICAL_TAXONOMY}'
      and exists (select 1 from terms p where p.id = ${parent} and p.taxonomy = ${taxonomy})
    on conflict do nothing;`;
}
