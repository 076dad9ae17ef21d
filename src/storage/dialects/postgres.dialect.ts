import pg from 'pg';
import { Kysely, type LogEvent, PostgresDialect as KyselyPostgres, sql, type ColumnDefinitionBuilder, type Expression } from 'kysely';
import type { Database } from '../database.js';
import { StorageError, type Dialect } from './dialect.js';

// count(*) and bigint ids come back as strings by default; every integer we store fits in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export interface PostgresOptions {
  url: string;
  /** Schema to work in (tests use a fresh one per file); created when missing. */
  schema?: string;
  max?: number;
  /** Called with every query's SQL (tests count queries with it). */
  onQuery?: (sql: string) => void;
}

const MIGRATION_LOCK_KEY = 724_151_903;

export class PostgresDialect implements Dialect {
  readonly name = 'postgres' as const;
  readonly db: Kysely<Database>;
  private readonly pool: pg.Pool;

  constructor(private readonly options: PostgresOptions) {
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name ${schema}`);
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
      connectionTimeoutMillis: 10_000,
    });
    // An idle client losing its server must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
    const onQuery = options.onQuery;
    this.db = new Kysely<Database>({
      dialect: new KyselyPostgres({ pool: this.pool }),
      ...(onQuery
        ? {
            log: (event: LogEvent) => {
              if (event.level === 'query') onQuery(event.query.sql);
            },
          }
        : {}),
    });
  }

  /** Creates the configured schema if it does not exist. */
  async prepare(): Promise<void> {
    if (!this.options.schema) return;
    const client = new pg.Client({ connectionString: this.options.url });
    await client.connect();
    try {
      await client.query(`create schema if not exists "${this.options.schema}"`);
    } finally {
      await client.end();
    }
  }

  async dropSchema(): Promise<void> {
    if (!this.options.schema) return;
    await sql`drop schema if exists ${sql.id(this.options.schema)} cascade`.execute(this.db);
  }

  autoId(col: ColumnDefinitionBuilder): ColumnDefinitionBuilder {
    return col.primaryKey().generatedByDefaultAsIdentity();
  }

  lower(expr: Expression<string>) {
    return sql<string>`lower(${expr})`;
  }

  distanceKm(lat: Expression<number | null>, lng: Expression<number | null>, toLat: number, toLng: number) {
    const lat0 = sql`cast(${toLat} as double precision)`;
    const lng0 = sql`cast(${toLng} as double precision)`;
    return sql<number>`(2 * 6371.0088 * asin(least(1, sqrt(power(sin(radians(${lat} - ${lat0}) / 2), 2) + cos(radians(${lat0})) * cos(radians(${lat})) * power(sin(radians(${lng} - ${lng0}) / 2), 2)))))`;
  }

  writeTransaction<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  migrationLock<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx);
      return fn(trx);
    });
  }

  translateError(error: unknown): unknown {
    const code = (error as { code?: unknown })?.code;
    if (typeof code !== 'string') return error;
    const message = (error as Error).message;
    if (code === '23505') return new StorageError('unique', message, error);
    if (code === '23503') return new StorageError('foreign_key', message, error);
    if (code === '40001' || code === '40P01' || code === '55P03') return new StorageError('busy', message, error);
    if (code.startsWith('08') || code === '57P01' || code === 'ECONNREFUSED') {
      return new StorageError('unavailable', message, error);
    }
    return error;
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}
