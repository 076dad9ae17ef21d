import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';

/**
 * A fixed statement on a hot path (creating an event runs a dozen of them): written once in SQL that both
 * databases read the same, with `?` placeholders, and handed to the driver as it is, without building a query
 * tree per call (the query builder cost more than SQLite spent running these). Both drivers then reuse their
 * prepared statement for the same text. `lower(` becomes the dialect's Unicode-aware lower-casing.
 */
export class Statement<Row = unknown> {
  readonly text: string;

  constructor(dialect: Dialect, text: string) {
    let n = 0;
    const lowered = text.replace(/\blower\(/g, `${dialect.lowerFunction}(`);
    this.text = dialect.name === 'postgres' ? lowered.replace(/\?/g, () => `$${++n}`) : lowered;
  }

  /** The statement with these parameters, to run later (stores/planned.ts). */
  compile(params: readonly unknown[]): CompiledQuery<Row> {
    return CompiledQuery.raw(this.text, [...params]);
  }

  async all(db: Kysely<Database>, params: readonly unknown[]): Promise<Row[]> {
    return (await db.executeQuery<Row>(this.compile(params))).rows;
  }

  async first(db: Kysely<Database>, params: readonly unknown[]): Promise<Row | undefined> {
    return (await this.all(db, params))[0];
  }

  async run(db: Kysely<Database>, params: readonly unknown[]): Promise<void> {
    await db.executeQuery(CompiledQuery.raw(this.text, [...params]));
  }
}

/** A store's fixed statements, built once per dialect (stores themselves are made anew for every transaction). */
export function statementSet<T>(build: (dialect: Dialect) => T): (dialect: Dialect) => T {
  const built = new WeakMap<Dialect, T>();
  return (dialect) => {
    let set = built.get(dialect);
    if (!set) {
      set = build(dialect);
      built.set(dialect, set);
    }
    return set;
  };
}

/** `?, ?, …` for n values. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
