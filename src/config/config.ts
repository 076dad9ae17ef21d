/**
 * Every environment variable the service reads, with its type, default and meaning. Nothing else in the code
 * base reads `process.env`: the server and the CLI call `loadConfig(process.env)` once and pass the frozen
 * result down.
 */
import { availableParallelism } from 'node:os';
import { isValidTimeZone } from '../time/zones.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Base of every URL the API emits, without a trailing slash. */
  readonly publicUrl: string;
  readonly database: DatabaseConfig;
  readonly adminLogin: string | undefined;
  readonly adminPassword: string | undefined;
  readonly siteTimezone: string;
  readonly logLevel: LogLevel;
  readonly bodyLimit: number;
  /** Origins allowed by CORS: empty = CORS off, `['*']` = any. */
  readonly corsOrigins: readonly string[];
  /** Bytes the response cache may hold; 0 turns it off. */
  readonly cacheBytes: number;
  /** Service processes sharing the port (1: no cluster). */
  readonly workers: number;
  /** Requests a client (IP address) may make per window; undefined: no limit. */
  readonly rateLimit: { readonly max: number; readonly windowMs: number } | undefined;
  /** Time a client has to send a whole request (headers and body), in ms. */
  readonly requestTimeoutMs: number;
}

/**
 * SQLite's `synchronous` setting in WAL mode. NORMAL syncs the WAL at checkpoints only: a power loss may lose
 * the last commits but never corrupts the file. FULL syncs the WAL at every commit: a commit that was answered
 * survives a power loss, at the cost of one fsync per commit (per group of commits, with group commit).
 */
export type SqliteSynchronous = 'NORMAL' | 'FULL';

export type DatabaseConfig =
  // `synchronous` is optional for callers that open a database themselves (tests, tools): NORMAL when absent
  | { readonly dialect: 'sqlite'; readonly path: string; readonly synchronous?: SqliteSynchronous }
  | { readonly dialect: 'postgres'; readonly url: string; readonly schema?: string };

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export interface VariableDoc {
  name: string;
  default: string;
  description: string;
}

/** The documentation of every variable; the README's table is written from this list. */
export const VARIABLES: readonly VariableDoc[] = [
  { name: 'PORT', default: '8080', description: 'TCP port to listen on (1-65535).' },
  { name: 'HOST', default: '127.0.0.1', description: 'Interface to listen on (`0.0.0.0` for all).' },
  {
    name: 'PUBLIC_URL',
    default: 'http://localhost:PORT',
    description: 'Base URL of every URL the API emits (`rest_url`, `urls.self`, …); http(s), no query.',
  },
  {
    name: 'DATABASE_URL',
    default: 'SQLite file `./data/calendar.db`',
    description: '`sqlite:PATH` (or `sqlite::memory:`) for SQLite, `postgres://user@host:port/db` for PostgreSQL.',
  },
  {
    name: 'SQLITE_SYNCHRONOUS',
    default: 'NORMAL',
    description:
      'SQLite only: `NORMAL` (a power loss may lose the last commits, never the file) or `FULL` (every answered write survives a power loss; an fsync per commit).',
  },
  { name: 'ADMIN_LOGIN', default: '(none)', description: 'On an empty database: login of the first administrator.' },
  {
    name: 'ADMIN_PASSWORD',
    default: '(none)',
    description: 'With `ADMIN_LOGIN`: that administrator\'s application password (at least 8 characters).',
  },
  { name: 'SITE_TIMEZONE', default: 'UTC', description: 'Site time zone: an IANA name, `UTC` or `UTC±N[.5]`.' },
  { name: 'LOG_LEVEL', default: 'info', description: 'fatal, error, warn, info, debug, trace or silent.' },
  { name: 'BODY_LIMIT', default: '1048576', description: 'Largest accepted request body in bytes (larger → 413).' },
  {
    name: 'CACHE_MB',
    default: '64',
    description: 'Memory for the response cache of reads, in MiB (entries live 1 s at most and die with any write); 0 turns it off.',
  },
  {
    name: 'WORKERS',
    default: '1',
    description: 'Service processes sharing the port: a number, or `auto` for one per CPU core.',
  },
  {
    name: 'RATE_LIMIT',
    default: '(off)',
    description: 'Requests per client IP and window, e.g. `600/60s` or `20/1s` (per process); over it → 429 with Retry-After.',
  },
  {
    name: 'REQUEST_TIMEOUT',
    default: '30',
    description: 'Seconds a client has to send a whole request; slower ones are cut off (slow-client protection).',
  },
  {
    name: 'CORS_ORIGINS',
    default: '(off)',
    description: 'Origins allowed to call the API from browsers: a comma-separated list (`https://a.example,https://b.example`) or `*`.',
  },
];

type Env = Record<string, string | undefined>;

function value(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  return trimmed === '' ? undefined : trimmed;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

const SYNCHRONOUS: readonly SqliteSynchronous[] = ['NORMAL', 'FULL'];

function parseSynchronous(raw: string | undefined): SqliteSynchronous {
  if (raw === undefined) return 'NORMAL';
  const upper = raw.toUpperCase() as SqliteSynchronous;
  // OFF and EXTRA exist in SQLite; OFF can corrupt the file on a power loss, EXTRA adds nothing in WAL mode
  if (!SYNCHRONOUS.includes(upper)) throw new ConfigError('SQLITE_SYNCHRONOUS', `must be NORMAL or FULL, got "${raw}"`);
  return upper;
}

function parseDatabase(raw: string | undefined, synchronous: SqliteSynchronous): DatabaseConfig {
  if (raw === undefined) return { dialect: 'sqlite', path: './data/calendar.db', synchronous };
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/calendar.db');
    return { dialect: 'sqlite', path, synchronous };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { dialect: 'postgres', url: raw };
  }
  throw new ConfigError('DATABASE_URL', `must start with sqlite: or postgres://, got "${raw}"`);
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env): Config {
  const port = integer(env, 'PORT', 8080, 1, 65535);
  const host = value(env, 'HOST') ?? '127.0.0.1';

  let publicUrl = value(env, 'PUBLIC_URL') ?? `http://localhost:${port}`;
  let parsed: URL;
  try {
    parsed = new URL(publicUrl);
  } catch {
    throw new ConfigError('PUBLIC_URL', `is not an absolute URL: "${publicUrl}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_URL', 'must be an http:// or https:// URL');
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    throw new ConfigError('PUBLIC_URL', 'must not carry a query string or fragment');
  }
  publicUrl = publicUrl.replace(/\/+$/, '');

  // validated whatever the database, so that a typo does not wait for the switch to SQLite to show
  const database = parseDatabase(value(env, 'DATABASE_URL'), parseSynchronous(value(env, 'SQLITE_SYNCHRONOUS')));

  const adminLogin = value(env, 'ADMIN_LOGIN');
  const adminPassword = value(env, 'ADMIN_PASSWORD');
  if (adminLogin !== undefined && !/^[A-Za-z0-9._@-]{1,60}$/.test(adminLogin)) {
    throw new ConfigError('ADMIN_LOGIN', 'may hold only letters, digits and . _ @ - (at most 60 characters)');
  }
  if ((adminLogin === undefined) !== (adminPassword === undefined)) {
    throw new ConfigError(adminLogin === undefined ? 'ADMIN_LOGIN' : 'ADMIN_PASSWORD', 'ADMIN_LOGIN and ADMIN_PASSWORD go together');
  }
  if (adminPassword !== undefined && adminPassword.length < 8) {
    throw new ConfigError('ADMIN_PASSWORD', 'must be at least 8 characters long');
  }

  const siteTimezone = value(env, 'SITE_TIMEZONE') ?? 'UTC';
  if (!isValidTimeZone(siteTimezone)) {
    throw new ConfigError('SITE_TIMEZONE', `is not a known time zone: "${siteTimezone}"`);
  }

  const logLevel = (value(env, 'LOG_LEVEL') ?? 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }

  const bodyLimit = integer(env, 'BODY_LIMIT', 1024 * 1024, 1024, 1024 * 1024 * 1024);

  const corsOrigins = (value(env, 'CORS_ORIGINS') ?? '')
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter((o) => o !== '');
  for (const origin of corsOrigins) {
    if (origin === '*') continue;
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || url.origin !== origin) throw new ConfigError('CORS_ORIGINS', `not an origin (scheme://host[:port]): "${origin}"`);
  }

  let rateLimit: Config['rateLimit'];
  const rate = value(env, 'RATE_LIMIT');
  if (rate !== undefined && rate.toLowerCase() !== 'off') {
    const m = /^(\d+)\s*\/\s*(\d+)?\s*(s|m|h)$/i.exec(rate);
    if (!m || Number(m[1]) < 1) throw new ConfigError('RATE_LIMIT', `must look like 600/60s, 100/1m or 20/s, got "${rate}"`);
    const unit = { s: 1000, m: 60_000, h: 3_600_000 }[m[3].toLowerCase() as 's' | 'm' | 'h'];
    rateLimit = Object.freeze({ max: Number(m[1]), windowMs: Number(m[2] ?? 1) * unit });
  }

  return Object.freeze({
    port,
    host,
    publicUrl,
    database: Object.freeze(database),
    adminLogin,
    adminPassword,
    siteTimezone,
    logLevel,
    bodyLimit,
    corsOrigins: Object.freeze(corsOrigins.includes('*') ? ['*'] : corsOrigins),
    cacheBytes: integer(env, 'CACHE_MB', 64, 0, 4096) * 1024 * 1024,
    workers: value(env, 'WORKERS')?.toLowerCase() === 'auto' ? availableParallelism() : integer(env, 'WORKERS', 1, 1, 256),
    rateLimit,
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT', 30, 1, 3600) * 1000,
  });
}
