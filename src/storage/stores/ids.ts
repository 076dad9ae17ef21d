/**
 * Ids are PostgreSQL `integer`s (serial: 1 to 2³¹−1; SQLite's rowids are wider, but the same numbers are given
 * out): a larger number names no row. Read as such before a query, not sent: PostgreSQL refuses to compare an
 * `integer` column with it (an error, where SQLite finds nothing), and `GET /events/99999999999` is a 404 on
 * both databases.
 */
const MAX_ID = 2_147_483_647;

export function isStorableId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= -MAX_ID - 1 && id <= MAX_ID;
}

/** The ids of a list that can name a row (see isStorableId). */
export function storableIds(ids: readonly number[]): number[] {
  return ids.filter(isStorableId);
}
