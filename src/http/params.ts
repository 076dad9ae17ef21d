/**
 * The shared request conventions of the original (WordPress' REST argument handling, CONTRACT.md §0):
 *
 * - every route declares its arguments; values come from the path, the body (JSON or form) and the query
 *   string, path first (we do not let a body `id` shadow the path's), then body, then query, then defaults;
 * - a required argument that is missing (or JSON null) → 400 `rest_missing_callback_param`, all names at once;
 * - every present argument is coerced by its declared type the WordPress way (booleans `true/false/1/0`,
 *   integer strings, lists as CSV or arrays) and then checked; all failures → one 400 `rest_invalid_param`
 *   whose `data.params` names each failing argument;
 * - only then does the route's permission check run (see route.ts).
 *
 * Argument types are TypeBox schemas, so the same declaration documents the route.
 */
import type { TSchema } from '@sinclair/typebox';
import { ANONYMOUS, type Actor } from '../domain/actor.js';
import { errors, INVALID_PARAMETER, type ParamFailure } from '../domain/errors.js';

/** A check's verdict: `invalid(...)` to fail; `accept(v)` to replace the value; nothing to keep it. */
export class Invalid {
  constructor(
    readonly message: string = INVALID_PARAMETER,
    readonly code?: string,
  ) {}
}
export class Accepted {
  constructor(readonly value: unknown) {}
}
export const invalid = (message?: string, code?: string) => new Invalid(message, code);
export const accept = (value: unknown) => new Accepted(value);

export type CheckResult = Invalid | Accepted | void;

export interface ArgContext<S = unknown> {
  readonly services: S;
  /** Who is calling: some checks depend on it (WordPress validators may look at the current user). */
  readonly actor: Actor;
  /** Arguments resolved so far (declaration order), for checks that depend on another argument. */
  readonly args: Readonly<Record<string, unknown>>;
}

export type ArgCheck<S = unknown> = (value: any, ctx: ArgContext<S>) => CheckResult | Promise<CheckResult>;

export interface Arg<S = unknown> {
  readonly schema: TSchema;
  readonly required?: boolean;
  /** Runs after type coercion, for non-null values. */
  readonly check?: ArgCheck<S>;
  /** Where the argument is read from, for the documentation; values are still merged WordPress-style. */
  readonly in?: 'path' | 'query' | 'body';
}

export type Args<S = unknown> = Readonly<Record<string, Arg<S>>>;

export function arg<S = unknown>(schema: TSchema, options: Omit<Arg<S>, 'schema'> = {}): Arg<S> {
  return { schema, ...options };
}

export interface ArgSources {
  readonly path: Record<string, unknown>;
  readonly body: Record<string, unknown> | undefined;
  readonly query: Record<string, unknown>;
}

const hasOwn = (o: object | undefined, k: string) => o !== undefined && Object.prototype.hasOwnProperty.call(o, k);

/** Resolves, coerces and checks a route's arguments; throws the original's 400s. */
export async function resolveArgs<S>(
  specs: Args<S>,
  sources: ArgSources,
  services: S,
  actor: Actor = ANONYMOUS,
): Promise<Record<string, unknown>> {
  const raw: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    let value: unknown;
    if (hasOwn(sources.path, name)) value = sources.path[name];
    else if (hasOwn(sources.body, name)) value = sources.body![name];
    else if (hasOwn(sources.query, name)) value = sources.query[name];
    else if (spec.schema.default !== undefined) value = spec.schema.default;
    if (spec.required && (value === undefined || value === null)) missing.push(name);
    if (value !== undefined) raw[name] = value;
  }
  if (missing.length > 0) throw errors.missingParams(missing);

  const failures: Record<string, ParamFailure> = {};
  const args: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    if (!(name in raw)) continue;
    const value = raw[name];
    if (value === null) {
      // JSON null: "clear this field" for optional arguments (DECISIONS.md)
      args[name] = null;
      continue;
    }
    if (hasNul(value)) {
      failures[name] = { message: `${name} contains a NUL character.` };
      continue;
    }
    const coerced = coerce(value, spec.schema, name);
    if (coerced instanceof Invalid) {
      failures[name] = { message: coerced.message, code: coerced.code };
      continue;
    }
    let final = coerced;
    if (spec.check) {
      const verdict = await spec.check(coerced, { services, actor, args });
      if (verdict instanceof Invalid) {
        failures[name] = { message: verdict.message, code: verdict.code };
        continue;
      }
      if (verdict instanceof Accepted) final = verdict.value;
    }
    args[name] = final;
  }
  if (Object.keys(failures).length > 0) throw errors.invalidParams(failures);
  return args;
}

/** Text with U+0000 is never valid input (and PostgreSQL cannot store it). */
function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  return Object.entries(value as object).some(([k, v]) => k.includes('\u0000') || hasNul(v, depth + 1));
}

const notOfType = (name: string, type: string) => new Invalid(`${name} is not of type ${type}.`);

/** WordPress' `rest_is_boolean` spellings. */
export function parseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === 'string') {
    const v = value.toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
  }
  return undefined;
}

/** Integers beyond any id or page there can be are held at this size (so arithmetic on them stays exact). */
const INTEGER_LIMIT = 999_999_999_999_999;

/**
 * WordPress' `rest_is_integer`: a number or numeric string (PHP's `is_numeric`: decimals and exponents too)
 * with an integral value — `"5"`, `" 5 "`, `"5.0"`, `"1e2"`.
 */
export function parseInteger(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : parseNumber(value);
  if (n === undefined || !Number.isInteger(n)) return undefined;
  return Math.max(-INTEGER_LIMIT, Math.min(INTEGER_LIMIT, n)) || 0;
}

export function parseNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (!/^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** A list given as an array or a CSV string; integer lists also split on whitespace (`wp_parse_list`). */
export function parseList(value: unknown, splitOnSpace: boolean): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'number') return [value];
  if (typeof value !== 'string') {
    if (value !== null && typeof value === 'object') return Object.values(value as object);
    return undefined;
  }
  const parts = value.split(splitOnSpace ? /[\s,]+/ : ',').map((s) => s.trim());
  return parts.filter((s) => s !== '');
}

function schemaType(schema: TSchema): string | undefined {
  return typeof schema.type === 'string' ? schema.type : undefined;
}

/** Coerces a raw value to the schema's type the WordPress way, or says why it cannot. */
export function coerce(value: unknown, schema: TSchema, name: string): unknown {
  const type = schemaType(schema);
  let result: unknown = value;
  switch (type) {
    case 'boolean': {
      const b = parseBoolean(value);
      if (b === undefined) return notOfType(name, 'boolean');
      result = b;
      break;
    }
    case 'integer': {
      const n = parseInteger(value);
      if (n === undefined) return notOfType(name, 'integer');
      if (typeof schema.minimum === 'number' && n < schema.minimum) {
        return new Invalid(`${name} must be greater than or equal to ${schema.minimum}`);
      }
      if (typeof schema.maximum === 'number' && n > schema.maximum) {
        return new Invalid(`${name} must be less than or equal to ${schema.maximum}`);
      }
      result = n;
      break;
    }
    case 'number': {
      const n = parseNumber(value);
      if (n === undefined) return notOfType(name, 'number');
      if (typeof schema.minimum === 'number' && n < schema.minimum) {
        return new Invalid(`${name} must be greater than or equal to ${schema.minimum}`);
      }
      if (typeof schema.maximum === 'number' && n > schema.maximum) {
        return new Invalid(`${name} must be less than or equal to ${schema.maximum}`);
      }
      result = n;
      break;
    }
    case 'string':
      if (typeof value !== 'string') return notOfType(name, 'string');
      if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) {
        return new Invalid(`${name} must be at most ${schema.maxLength} characters long.`);
      }
      break;
    case 'array': {
      const items = (schema.items ?? {}) as TSchema;
      const list = parseList(value, schemaType(items) === 'integer');
      if (list === undefined) return notOfType(name, 'array');
      if (typeof schema.maxItems === 'number' && list.length > schema.maxItems) {
        return new Invalid(`${name} must contain at most ${schema.maxItems} items.`);
      }
      const out: unknown[] = [];
      for (let i = 0; i < list.length; i++) {
        const item = coerce(list[i], items, `${name}[${i}]`);
        if (item instanceof Invalid) return item;
        out.push(item);
      }
      result = out;
      break;
    }
    case 'object':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return notOfType(name, 'object');
      break;
    default:
      break;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(result)) {
    return new Invalid(`${name} is not one of ${schema.enum.join(', ')}.`);
  }
  return result;
}

// ---- checks shared by many routes -------------------------------------------------------------------

export const nonEmptyString: ArgCheck = (value: string) => (value.trim() === '' ? invalid() : undefined);

export const positiveInteger: ArgCheck = (value: number) => (value < 1 ? invalid() : undefined);
