/** Key lists taken from the response schemas (the one declaration of each wire shape), for tests. */
import type { TObject } from '@sinclair/typebox';

/** Every key the schema declares, in its order. */
export const keysOf = (schema: TObject): string[] => Object.keys(schema.properties);

/**
 * The keys an object of this schema has when these optional keys hold values: the required ones and those,
 * in the schema's order (venues and organizers leave empty optional keys out, as the original does).
 */
export const keysWith = (schema: TObject, present: readonly string[]): string[] =>
  keysOf(schema).filter((k) => (schema.required ?? []).includes(k) || present.includes(k));

/** The value without `json_ld` anywhere in it (single reads add it, on the object and what it embeds). */
export function withoutJsonLd<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutJsonLd) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'json_ld')
      .map(([k, v]) => [k, withoutJsonLd(v)]),
  ) as T;
}
