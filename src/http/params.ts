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
import type { Static, TSchema } from '@sinclair/typebox';
import { type Actor, ANONYMOUS } from '../domain/actor.js';
import { errors, INVALID_PARAMETER, type ParamFailure } from '../domain/errors.js';
import type { Services } from '../domain/services.js';

/** A check's verdict: `invalid(...)` to fail; `accept(v)` to replace the value; nothing to keep it. */
export class Invalid {
  constructor(
    readonly message: string = INVALID_PARAMETER,
    /** The code of the WP_Error a WordPress validator would have returned: the failure then has `data.details`. */
    readonly code?: string,
    /** That error's data (WordPress' schema checks: `{param}`). */
    readonly data?: Readonly<Record<string, unknown>>,
  ) {}
}
export class Accepted<T = unknown> {
  constructor(readonly value: T) {}
}
export const invalid = (message?: string, code?: string) => new Invalid(message, code);
export const accept = <T>(value: T) => new Accepted<T>(value);

export type CheckResult<T = unknown> = Invalid | Accepted<T> | undefined;

export interface ArgContext {
  readonly services: Services;
  /** Who is calling: some checks depend on it (WordPress validators may look at the current user). */
  readonly actor: Actor;
  /** Arguments resolved so far (declaration order, wire names), for checks that depend on another argument. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The data version the request reads under (route.ts requestVersion), for checks that keep what they read by it. */
  readonly dataVersion?: () => Promise<number>;
}

export type ArgCheck<V = unknown> = (value: V, ctx: ArgContext) => CheckResult<unknown> | Promise<CheckResult<unknown>>;

/**
 * How a list's emitted URLs (`rest_url`, `next_rest_url`, …) carry an argument: `value` (the default) its
 * resolved value when there is one; `given` its resolved value only when the request named it; `raw` the value
 * exactly as sent; `false` never. A service may override the value with the effective one it used.
 */
export type Carry = 'value' | 'given' | 'raw' | false;

type Presence = 'required' | 'defaulted' | 'optional';

/**
 * One argument of a route. `T` is the type of its value once coerced and checked, `N` the name the handler
 * and the domain know it by (`as`; the wire name when undefined), `P` whether it can be absent.
 */
export interface Arg<T = unknown, N extends string | undefined = string | undefined, P extends Presence = Presence> {
  readonly schema: TSchema;
  readonly required?: boolean;
  /** Used when the argument is absent or JSON null; documented as the schema's `default`. */
  readonly default?: unknown;
  /**
   * Runs after type coercion, for non-null values. (Method syntax: a check of a narrower value — a string once
   * the schema has coerced it — stands for any argument's check.)
   */
  check?(value: unknown, ctx: ArgContext): CheckResult<unknown> | Promise<CheckResult<unknown>>;
  /** Where the argument is read from, for the documentation; values are still merged WordPress-style. */
  readonly in?: 'path' | 'query' | 'body';
  readonly as?: N;
  readonly carry?: Carry;
  /** Type-level only: the value's type and presence. */
  readonly __type?: { value: T; presence: P };
}

/** Any argument, whatever its value type, name and presence. */
export type AnyArg = Arg<unknown, string | undefined, Presence>;

export type Args = Readonly<Record<string, AnyArg>>;

export interface ArgOptions<V> {
  readonly required?: boolean;
  readonly default?: V;
  readonly check?: (value: V, ctx: ArgContext) => unknown;
  readonly in?: 'path' | 'query' | 'body';
  readonly as?: string;
  readonly carry?: Carry;
}

type CheckReturn<O> = O extends { check: (...a: never[]) => infer R } ? Awaited<R> : undefined;
type AcceptedOf<R> = R extends Accepted<infer X> ? X : never;
type KeptOf<R, V> = undefined extends R ? V : never;
/** The value an argument yields: what its check accepts, or the coerced value when the check keeps it. */
type ValueOf<V, O> = AcceptedOf<CheckReturn<O>> | KeptOf<CheckReturn<O>, V>;
type NameOf<O> = O extends { as: infer N extends string } ? N : undefined;
type PresenceOf<O> = O extends { required: true } ? 'required' : O extends { default: unknown } ? 'defaulted' : 'optional';

/** Declares an argument: its TypeBox schema (coercion and documentation) and options (see ArgOptions). */
export function arg<S extends TSchema, const O extends ArgOptions<Static<S>> = Record<never, never>>(
  schema: S,
  options?: O,
): Arg<ValueOf<Static<S>, O>, NameOf<O>, PresenceOf<O>> {
  const documented = options?.default === undefined ? schema : ({ ...schema, default: options.default } as TSchema);
  return { ...(options as ArgOptions<unknown> | undefined), schema: documented } as Arg<ValueOf<Static<S>, O>, NameOf<O>, PresenceOf<O>>;
}

/** The same argument, required (create routes require what update routes make optional). */
export function required<T, N extends string | undefined>(a: Arg<T, N, Presence>): Arg<T, N, 'required'> {
  return { ...a, required: true } as Arg<T, N, 'required'>;
}

/** The same argument, with a default. */
export function withDefault<T, N extends string | undefined>(a: Arg<T, N, Presence>, value: unknown): Arg<T, N, 'defaulted'> {
  return { ...a, default: value, schema: { ...a.schema, default: value } as TSchema } as Arg<T, N, 'defaulted'>;
}

type KeyOf<K extends string, A> = A extends Arg<unknown, infer N, Presence> ? (N extends string ? N : K) : K;
type ValueFor<A> = A extends Arg<infer T, string | undefined, infer P> ? (P extends 'required' | 'defaulted' ? T : T | null | undefined) : never;

/**
 * The resolved arguments of a declaration, by domain name: what a handler receives. An absent optional argument
 * is `undefined`; JSON null is `null` ("clear this field", DECISIONS.md).
 */
export type Resolved<A extends Args> = { readonly [K in keyof A & string as KeyOf<K, A[K]>]: ValueFor<A[K]> };

/** `unknown` when the arguments `A` resolve to what `I` takes; otherwise a type naming what does not fit. */
export type ArgsMatch<A extends Args, I> = [Exclude<keyof Resolved<A>, keyof I>] extends [never]
  ? Resolved<A> extends I
    ? unknown
    : {
        readonly 'argument types differ from the service input': {
          [K in keyof Resolved<A> & keyof I]: Resolved<A>[K] extends I[K] ? never : K;
        }[keyof Resolved<A> & keyof I];
      }
  : { readonly 'arguments the service input does not have': Exclude<keyof Resolved<A>, keyof I> };

/**
 * Declares the arguments a service input `I` is made of: compiling fails when an argument's domain name is not a
 * field of `I` (a misspelt `as`) or its value is not what `I` takes, so routes pass `ctx.args` on as they are.
 */
export function argsFor<I>() {
  return <const A extends Args>(args: A & ArgsMatch<A, I>): A => args;
}

export interface ArgSources {
  readonly path: Record<string, unknown>;
  readonly body: Record<string, unknown> | undefined;
  readonly query: Record<string, unknown>;
}

const hasOwn = (o: object | undefined, k: string) => o !== undefined && Object.hasOwn(o, k);

/** The name a handler knows an argument by. */
export const domainName = (wire: string, a: AnyArg): string => a.as ?? wire;

/** A declaration's arguments as [wire name, argument, domain name], listed once per declaration (see resolveArgs). */
const listed = new WeakMap<Args, readonly (readonly [string, AnyArg, string])[]>();
function entriesOf(specs: Args): readonly (readonly [string, AnyArg, string])[] {
  let entries = listed.get(specs);
  if (entries === undefined) {
    entries = Object.entries(specs).map(([name, spec]) => [name, spec, domainName(name, spec)] as const);
    listed.set(specs, entries);
  }
  return entries;
}

const isPromise = (v: unknown): v is Promise<unknown> => typeof (v as Promise<unknown> | undefined)?.then === 'function';

/**
 * Resolves, coerces and checks a route's arguments; throws the original's 400s. The result is keyed by domain
 * name (`as`), typed from the declarations. (Per request on every route: the declaration's entries are listed
 * once, and a check that answers at once is not awaited — the events list has forty-odd arguments.)
 */
export async function resolveArgs<A extends Args>(
  specs: A,
  sources: ArgSources,
  services: Services,
  actor: Actor = ANONYMOUS,
  dataVersion?: () => Promise<number>,
): Promise<Resolved<A>> {
  const entries = entriesOf(specs);
  const raw: Record<string, unknown> = {};
  const missing: string[] = [];
  const { path, body, query } = sources;
  for (const [name, spec] of entries) {
    let value: unknown;
    if (hasOwn(path, name)) value = path[name];
    else if (body !== undefined && hasOwn(body, name)) value = body[name];
    else if (hasOwn(query, name)) value = query[name];
    if ((value === undefined || value === null) && spec.default !== undefined) value = spec.default;
    if (spec.required && (value === undefined || value === null)) missing.push(name);
    if (value !== undefined) raw[name] = value;
  }
  if (missing.length > 0) throw errors.missingParams(missing);

  const failures: Record<string, ParamFailure> = {};
  let failed = false;
  const args: Record<string, unknown> = {};
  const out: Record<string, unknown> = {};
  for (const [name, spec, as] of entries) {
    if (!(name in raw)) continue;
    const value = raw[name];
    if (value === null) {
      // JSON null: "clear this field" for optional arguments (DECISIONS.md)
      args[name] = out[as] = null;
      continue;
    }
    const unfit = unfitText(value);
    if (unfit !== undefined) {
      failures[name] = { message: `${name} contains ${unfit}.` };
      failed = true;
      continue;
    }
    const coerced = coerce(value, spec.schema, name);
    if (coerced instanceof Invalid) {
      failures[name] = { message: coerced.message, code: coerced.code, data: coerced.data };
      failed = true;
      continue;
    }
    let final = coerced;
    if (spec.check) {
      const answer = spec.check(coerced, { services, actor, args, dataVersion });
      const verdict = isPromise(answer) ? await answer : answer;
      if (verdict instanceof Invalid) {
        failures[name] = { message: verdict.message, code: verdict.code, data: verdict.data };
        failed = true;
        continue;
      }
      if (verdict instanceof Accepted) final = verdict.value;
    }
    args[name] = out[as] = final;
  }
  if (failed) throw errors.invalidParams(failures);
  return out as Resolved<A>;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What text in a value (its keys too) can never be: U+0000 (PostgreSQL cannot store it), or a lone surrogate
 * (`\ud800` in JSON: no character, which neither database stores as sent, and a URL cannot encode). */
function unfitText(value: unknown, depth = 0): string | undefined {
  const ofString = (s: string) =>
    s.includes('\u0000') ? 'a NUL character' : LONE_SURROGATE.test(s) ? 'an unpaired surrogate (not a character)' : undefined;
  if (typeof value === 'string') return ofString(value);
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value as object)) {
    const unfit = ofString(k) ?? unfitText(v, depth + 1);
    if (unfit !== undefined) return unfit;
  }
  return undefined;
}

/**
 * A failure of WordPress' schema checks (`rest_validate_value_from_schema`): a WP_Error of its code, whose data is
 * the parameter's name for a wrong type only (the bounds, lengths and enums carry none).
 */
const schemaFailure = (_name: string, code: string, message: string) => new Invalid(message, code);
const notOfType = (name: string, type: string) => new Invalid(`${name} is not of type ${type}.`, 'rest_invalid_type', { param: name });

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
    case 'integer':
    case 'number': {
      const n = type === 'integer' ? parseInteger(value) : parseNumber(value);
      if (n === undefined) return notOfType(name, type);
      if (typeof schema.minimum === 'number' && n < schema.minimum) {
        return schemaFailure(name, 'rest_out_of_bounds', `${name} must be greater than or equal to ${schema.minimum}`);
      }
      if (typeof schema.maximum === 'number' && n > schema.maximum) {
        return schemaFailure(name, 'rest_out_of_bounds', `${name} must be less than or equal to ${schema.maximum}`);
      }
      result = n;
      break;
    }
    case 'string':
      if (typeof value !== 'string') return notOfType(name, 'string');
      if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) {
        return schemaFailure(name, 'rest_too_long', `${name} must be at most ${schema.maxLength} characters long.`);
      }
      break;
    case 'array': {
      const items = (schema.items ?? {}) as TSchema;
      const list = parseList(value, schemaType(items) === 'integer');
      if (list === undefined) return notOfType(name, 'array');
      if (typeof schema.maxItems === 'number' && list.length > schema.maxItems) {
        return schemaFailure(name, 'rest_too_many_items', `${name} must contain at most ${schema.maxItems} items.`);
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
    return schemaFailure(name, 'rest_not_in_enum', `${name} is not one of ${schema.enum.join(', ')}.`);
  }
  return result;
}

// ---- checks shared by many routes -------------------------------------------------------------------

export const nonEmptyString = (value: string) => (value.trim() === '' ? invalid() : undefined);
