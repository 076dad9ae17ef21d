import type { TSchema } from '@sinclair/typebox';

/** The JSON-schema keywords WordPress exposes for an argument in the index (`rest_get_allowed_schema_keywords`). */
const KEYWORDS = [
  'title',
  'description',
  'default',
  'type',
  'format',
  'enum',
  'items',
  'properties',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'anyOf',
  'oneOf',
] as const;

/** A TypeBox schema as plain JSON (no symbols), keeping only the public keywords, recursively. */
export function publicSchema(schema: TSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of KEYWORDS) {
    const value = (schema as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (key === 'items' && value && typeof value === 'object') out[key] = publicSchema(value as TSchema);
    else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) out[key] = value.map((s) => publicSchema(s));
    else if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, s]) => [k, publicSchema(s as TSchema)]));
    } else out[key] = JSON.parse(JSON.stringify(value));
  }
  return out;
}
