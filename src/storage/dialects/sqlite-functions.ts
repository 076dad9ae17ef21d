/**
 * The SQL functions our SQLite statements call, registered on every connection that runs them: the main one
 * (sqlite.dialect.ts) and the read threads' (sqlite-reader.ts). Kept apart so that a thread loads this and
 * better-sqlite3, not Kysely and the dialect.
 */
import type SqliteDatabase from 'better-sqlite3';

const EARTH_KM = 6371.0088;

export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

export function registerFunctions(db: SqliteDatabase.Database): void {
  // SQLite's lower() folds ASCII only; this one folds every script, like PostgreSQL's.
  db.function('ulower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  db.function('geo_distance_km', { deterministic: true }, (lat1: unknown, lng1: unknown, lat2: unknown, lng2: unknown) =>
    lat1 === null || lng1 === null ? null : haversineKm(Number(lat1), Number(lng1), Number(lat2), Number(lng2)),
  );
}
