/**
 * The one storage interface: every store, over either database, plus `transaction()`. A `Storage` made inside
 * a transaction hands the same stores bound to that transaction, so service code reads the same either way.
 */
import type { Kysely } from 'kysely';
import type { DatabaseConfig } from '../config/config.js';
import type { LinkedType } from '../domain/linked/linked.js';
import type { Database } from './database.js';
import { type Dialect, StorageError, type Versions } from './dialects/dialect.js';
import { SqliteDialect } from './dialects/sqlite.dialect.js';
import { migrate } from './migrations/migrator.js';
import { ChangeStore } from './stores/change.store.js';
import { EventStore } from './stores/event.store.js';
import { ImageStore } from './stores/image.store.js';
import { ImportStore } from './stores/import.store.js';
import { ImportMapStore } from './stores/import-map.store.js';
import { LinkedStore } from './stores/linked.store.js';
import { MediaStore } from './stores/media.store.js';
import type { PlannedAnswers, PlannedRead } from './stores/planned.js';
import { PostStore } from './stores/post.store.js';
import { SeriesStore } from './stores/series.store.js';
import { TermStore } from './stores/term.store.js';
import { UserStore } from './stores/user.store.js';
import { WebhookStore } from './stores/webhook.store.js';

export class Storage {
  readonly users: UserStore;
  readonly terms: TermStore;
  readonly posts: PostStore;
  readonly events: EventStore;
  readonly series: SeriesStore;
  readonly images: ImageStore;
  readonly imports: ImportStore;
  /** What site-to-site imports remember (migration 0011). */
  readonly importMap: ImportMapStore;
  readonly venues: LinkedStore<'venue'>;
  readonly organizers: LinkedStore<'organizer'>;
  /** The change log (migration 0012): inside a transaction, its notes are written just before the commit. */
  readonly changes: ChangeStore;
  /** Image files kept here and where they came from (migration 0014). */
  readonly media: MediaStore;
  /** Webhook endpoints, deliveries and their log (migration 0016). */
  readonly webhooks: WebhookStore;

  constructor(
    readonly dialect: Dialect,
    /** The executor: the dialect's pool, or a transaction. */
    readonly db: Kysely<Database> = dialect.db,
    private readonly inTransaction = false,
  ) {
    this.users = new UserStore(db);
    this.terms = new TermStore(db, dialect);
    this.posts = new PostStore(db);
    this.events = new EventStore(db, dialect);
    this.series = new SeriesStore(db, dialect);
    this.images = new ImageStore(db, dialect);
    this.imports = new ImportStore(db, dialect);
    this.importMap = new ImportMapStore(db);
    this.venues = new LinkedStore(db, dialect, 'venue');
    this.organizers = new LinkedStore(db, dialect, 'organizer');
    this.changes = new ChangeStore(db, dialect, inTransaction);
    this.media = new MediaStore(db);
    this.webhooks = new WebhookStore(db, dialect);
  }

  /** The store of a linked kind. */
  linked<T extends LinkedType>(type: T): LinkedStore<T> {
    return (type === 'venue' ? this.venues : this.organizers) as LinkedStore<LinkedType> as LinkedStore<T>;
  }

  /**
   * Runs `fn` atomically: everything it writes is committed together or not at all, with the changes it noted
   * in the change log. Nested calls join the outer transaction. Driver errors leave as `StorageError`s.
   */
  async transaction<T>(fn: (tx: Storage) => Promise<T>): Promise<T> {
    if (this.inTransaction) return fn(this);
    try {
      let tx: Storage | undefined;
      return await this.dialect.writeTransaction(
        (trx) => {
          tx = new Storage(this.dialect, trx, true);
          return fn(tx);
        },
        // the change log's rows, written last (on PostgreSQL with the COMMIT, in its round trip)
        () => tx?.changes.takeInsert(),
      );
    } catch (error) {
      throw this.dialect.translateError(error);
    }
  }

  /** Inside `transaction()`: holds a named lock until the transaction ends (concurrent slug or name checks). */
  async lock(key: string): Promise<void> {
    if (!this.inTransaction) throw new Error('lock() needs a transaction');
    await this.dialect.lock(this.db, key);
  }

  /**
   * Inside `transaction()`: holds the other writers of the post (and of an occurrence's series) off until the
   * transaction ends, for writes computed from what they read.
   */
  async lockPost(id: number): Promise<void> {
    if (!this.inTransaction) throw new Error('lockPost() needs a transaction');
    await this.dialect.lockPost(this.db, id);
  }

  translateError(error: unknown): unknown {
    return error instanceof StorageError ? error : this.dialect.translateError(error);
  }

  async migrate(): Promise<string[]> {
    return migrate(this.dialect);
  }

  /**
   * Several planned reads at once (stores/planned.ts), inside a transaction or not: on PostgreSQL one statement
   * for all of them (one round trip, one snapshot), on SQLite one after the other.
   */
  async readTogether<P extends readonly PlannedRead<unknown>[]>(plans: P): Promise<PlannedAnswers<P>> {
    const queries = plans.flatMap((p) => (p.query ? [p.query] : []));
    const rows = queries.length === 0 ? [] : await this.dialect.readTogether(this.db, queries);
    let next = 0;
    return plans.map((p) => p.read(p.query ? rows[next++] : [])) as PlannedAnswers<P>;
  }

  /** Move on with committed writes, in any process: what caches compare against (see Versions). */
  versions(): Promise<Versions> {
    return this.dialect.versions();
  }

  optimize(): Promise<void> {
    return this.dialect.optimize();
  }

  ping(): Promise<void> {
    return this.dialect.ping();
  }

  close(): Promise<void> {
    return this.dialect.close();
  }
}

/** Opens the configured database (it is not migrated yet: call `migrate()`). */
export async function openStorage(config: DatabaseConfig, options: { poolSize?: number } = {}): Promise<Storage> {
  if (config.dialect === 'sqlite') {
    return new Storage(new SqliteDialect({ path: config.path, synchronous: config.synchronous, readThreads: config.readThreads }));
  }
  // loaded only for PostgreSQL: the driver is ~16 MB of a SQLite service's memory it would never use
  const { PostgresDialect } = await import('./dialects/postgres.dialect.js');
  const dialect = new PostgresDialect({ url: config.url, schema: config.schema, max: options.poolSize });
  await dialect.prepare();
  return new Storage(dialect);
}
