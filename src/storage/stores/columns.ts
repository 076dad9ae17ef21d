/**
 * Domain records ↔ rows: each table's columns are named once, with the conversion a column needs (flags as 0/1,
 * lists as JSON), and stores write and read rows only through these maps — the domain never builds a
 * snake_case row.
 */
import type { Updateable } from 'kysely';
import type { CustomField } from '../../domain/events/event.js';
import type { Flag } from '../database.js';

/** A column's conversion. (Method syntax: a codec of one column type stands for any column's in a map.) */
export interface Codec<V, C> {
  toRow(value: V): C;
  fromRow(value: C): V;
}

export const flag: Codec<boolean, Flag> = {
  toRow: (v) => (v ? 1 : 0),
  fromRow: (v) => Number(v) === 1,
};

/** A list of strings stored as a JSON array. */
export const jsonList: Codec<readonly string[], string> = {
  toRow: (v) => JSON.stringify(v),
  fromRow: (v) => JSON.parse(v) as string[],
};

/** An event's additional fields as a JSON array of `{name, label, value}` (an array keeps their order); none: null. */
export const customFieldList: Codec<readonly CustomField[], string | null> = {
  toRow: (v) => (v.length === 0 ? null : JSON.stringify(v.map((f) => ({ name: f.name, label: f.label, value: f.value })))),
  fromRow: (v) => (v === null || v === undefined ? [] : (JSON.parse(v) as CustomField[])),
};

/** A nullable number (PostgreSQL's driver may hand numerics back as strings). */
export const nullableNumber: Codec<number | null, number | null> = {
  toRow: (v) => v,
  fromRow: (v) => (v === null ? null : Number(v)),
};

type Entry<V, Table> = (keyof Table & string) | readonly [keyof Table & string, Codec<V, unknown>];

export interface ColumnMap<D, Table> {
  /** Column names in declaration order. */
  readonly columns: readonly (keyof Table & string)[];
  /** The columns of the fields present in `values`, converted (each codec gives its column's type). */
  toRow(values: Partial<D>): Updateable<Table>;
  /** Every column of the full `values`, in declaration order (for fixed insert statements). */
  toValues(values: D): unknown[];
  fromRow(row: Readonly<Record<string, unknown>>): D;
}

/**
 * A name as a key of a generated object literal: a JSON string literal, so that no name can be anything but a
 * key, and `__proto__` computed, so that it is a key too (written plainly it would set the object's prototype).
 */
export function literalKey(name: string): string {
  return name === '__proto__' ? '["__proto__"]' : JSON.stringify(name);
}

/**
 * A row's record, by a function written for the map: one object literal of the fields, in order (every row a
 * store reads goes through here; a loop setting the fields one by one by name took several times as long, and
 * left objects slower to read). Field and column names are the map's own, written as JSON string literals.
 */
function recordMaker<D>(fields: readonly { field: string; column: string; codec: Codec<unknown, unknown> | undefined }[]) {
  const parts = fields.map((f, i) => {
    const cell = `row[${JSON.stringify(f.column)}]`;
    return `${literalKey(f.field)}: ${f.codec ? `codecs[${i}].fromRow(${cell})` : cell}`;
  });
  return new Function('codecs', `return (row) => ({ ${parts.join(', ')} });`)(fields.map((f) => f.codec)) as (
    row: Readonly<Record<string, unknown>>,
  ) => D;
}

export function columnMap<Table>() {
  return <D>(entries: { readonly [K in keyof D]-?: Entry<D[K], Table> }): ColumnMap<D, Table> => {
    const fields = Object.entries(entries as Record<string, Entry<unknown, Table>>).map(([field, entry]) => {
      const [column, codec] = typeof entry === 'string' ? [entry, undefined] : entry;
      return { field, column, codec: codec as Codec<unknown, unknown> | undefined };
    });
    return {
      columns: fields.map((f) => f.column as keyof Table & string),
      toRow(values) {
        const row: Record<string, unknown> = {};
        for (const f of fields) {
          const v = (values as Record<string, unknown>)[f.field];
          if (v !== undefined) row[f.column] = f.codec ? f.codec.toRow(v) : v;
        }
        return row as Updateable<Table>;
      },
      toValues(values) {
        return fields.map((f) => {
          const v = (values as Record<string, unknown>)[f.field];
          return f.codec ? f.codec.toRow(v) : v;
        });
      },
      fromRow: recordMaker<D>(fields),
    };
  };
}
