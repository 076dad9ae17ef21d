/**
 * Fault injection in a test database: a trigger that makes one statement fail when the row it writes matches
 * a condition. It lets a test break a write in the middle of its transaction, after its earlier statements
 * have run, without knowing anything about the service's code — only the table a late statement writes and a
 * value the test marked. Created on whichever database the test runs (test/helpers/db.ts), inside the test's
 * own database (SQLite file or memory; PostgreSQL: the test's schema, dropped with it).
 */
import { type Kysely, sql } from 'kysely';
import { DIALECT } from './db.js';

export interface FaultSpec {
  /** A name for the trigger: letters, digits and underscores. */
  name: string;
  table: string;
  on: 'insert' | 'update' | 'delete';
  /**
   * When to fail, as an SQL condition on `new` (or `old` for deletes) that reads the same on both databases,
   * e.g. `new.name like '%#fault%'`.
   */
  when: string;
}

export interface Fault {
  /** The error text the driver raises (the service must never show it to a client). */
  readonly message: string;
  remove(): Promise<void>;
}

/**
 * SQLite: `RAISE(ABORT)` undoes the failing statement and leaves the transaction open, as any statement error
 * does, so the service sees an ordinary driver error. PostgreSQL: a plpgsql trigger function raising an
 * exception (SQLSTATE P0001), which aborts the transaction as any error does there.
 */
export async function injectFault(db: Kysely<any>, spec: FaultSpec): Promise<Fault> {
  if (!/^[a-z_][a-z0-9_]*$/.test(spec.name)) throw new Error(`bad fault name ${spec.name}`);
  const message = `injected fault ${spec.name}`;
  if (DIALECT === 'sqlite') {
    await sql
      .raw(
        `create trigger ${spec.name} before ${spec.on} on ${spec.table} for each row when ${spec.when} begin select raise(abort, '${message}'); end`,
      )
      .execute(db);
    return {
      message,
      remove: () =>
        sql
          .raw(`drop trigger ${spec.name}`)
          .execute(db)
          .then(() => undefined),
    };
  }
  const row = spec.on === 'delete' ? 'old' : 'new';
  await sql
    .raw(
      `create function ${spec.name}_fn() returns trigger language plpgsql as $$
       begin
         if ${spec.when} then raise exception '${message}'; end if;
         return ${row};
       end $$`,
    )
    .execute(db);
  await sql.raw(`create trigger ${spec.name} before ${spec.on} on ${spec.table} for each row execute function ${spec.name}_fn()`).execute(db);
  return {
    message,
    async remove() {
      await sql.raw(`drop trigger ${spec.name} on ${spec.table}`).execute(db);
      await sql.raw(`drop function ${spec.name}_fn()`).execute(db);
    },
  };
}

/**
 * The statements that changed data in a query log (`createTestApp(env, { onQuery })`), as `insert posts`,
 * `update terms`… (each write of a statement that makes several), with the transaction control statements kept (`begin`, `savepoint`, `rollback`, `commit`):
 * enough to see how far a write got before it failed.
 */
export function writeSteps(statements: readonly string[]): string[] {
  const steps: string[] = [];
  for (const s of statements) {
    const text = s.trim().toLowerCase();
    const write = /^(insert into|update|delete from)\s+"?([a-z_]+)"?/.exec(text);
    if (write) steps.push(`${write[1].split(' ')[0]} ${write[2]}`);
    else if (/^with\b/.test(text)) {
      // a statement of several writes (PostgreSQL's data-modifying `with`): each of them, in the order written
      for (const m of text.matchAll(/(?:^with\s+|\bas\s+\(\s*|\)\s*)(insert into|update|delete from)\s+"?([a-z_]+)"?/g)) {
        steps.push(`${m[1].split(' ')[0]} ${m[2]}`);
      }
    } else if (/^(begin|savepoint|rollback|commit|release)\b/.test(text)) steps.push(text.replace(/\s+/g, ' '));
  }
  return steps;
}
