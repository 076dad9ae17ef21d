/**
 * Every environment variable the service reads, with its type, default and meaning. Nothing else in the code
 * base reads `process.env`: the server and the CLI call `loadConfig(process.env)` once and pass the frozen
 * result down.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
  /** How far ahead unbounded recurring series are materialised (months). */
  readonly recurrenceHorizonMonths: number;
  /** How long the change log keeps changes: sync tokens older than this answer 410 (SYNC_RETENTION_DAYS). */
  readonly syncRetentionDays: number;
  readonly logLevel: LogLevel;
  readonly bodyLimit: number;
  /** Origins allowed by CORS: empty = CORS off, `['*']` = any. */
  readonly corsOrigins: readonly string[];
  /** Bytes the response cache may hold; 0 turns it off. */
  readonly cacheBytes: number;
  /** Bytes the serialised items of lists may hold (http/fragments.ts); 0 turns them off. */
  readonly fragmentBytes: number;
  /** Service processes sharing the port (1: no cluster). */
  readonly workers: number;
  /** Requests a client (IP address) may make per window; undefined: no limit. */
  readonly rateLimit: { readonly max: number; readonly windowMs: number } | undefined;
  /**
   * A Redis shared by every service process, where the rate limit is counted (undefined: each process counts
   * alone). `prefix` starts every key the service writes there.
   */
  readonly redis: { readonly url: string; readonly prefix: string } | undefined;
  /** Time a client has to send a whole request (headers and body), in ms. */
  readonly requestTimeoutMs: number;
  /** Whether the API is also served under `/wp-json/tribe/events/v1`, with a WordPress root index at `/wp-json/`. */
  readonly wpPaths: boolean;
  /** The site's name and tagline, as the WordPress root index shows them. */
  readonly siteName: string;
  readonly siteDescription: string;
  /** PEM files to serve HTTPS with; undefined: plain HTTP. Read by `readTls()` when the server starts. */
  readonly tls: { readonly certPath: string; readonly keyPath: string } | undefined;
  /** Imports may fetch URLs on private, loopback and link-local addresses (tests, trusted networks). */
  readonly importAllowPrivate: boolean;
  /** Webhooks may go to http URLs and private, loopback or link-local addresses (WEBHOOKS_ALLOW_PRIVATE). */
  readonly webhooksAllowPrivate: boolean;
  /** A new webhook endpoint must accept a `webhook.test` first (WEBHOOKS_VERIFY). */
  readonly webhooksVerify: boolean;
  /** How long a process holds a delivery it is sending before another may take it over (WEBHOOKS_LEASE_SECONDS). */
  readonly webhooksLeaseMs: number;
  /** How long parsing one imported file may take before its job fails (ms). */
  readonly importParseTimeoutMs: number;
  /** Site imports: the first backoff after a failed request (ms). */
  readonly importRetryBaseMs: number;
  /** The HTML calendar at the root of PUBLIC_URL (`/events/`, `/event/<slug>/`…): on or off. */
  readonly pages: boolean;
  /** What `/events/` shows. */
  readonly pagesDefaultView: 'list' | 'month';
  /** Sites allowed to frame `/events/embed` (CSP `frame-ancestors`): origins, or `['*']` for any. */
  readonly embedOrigins: readonly string[];
  /** Writes of an existing item must carry If-Match or If-Unmodified-Since (else 428). */
  readonly requireIfMatch: boolean;
}

/**
 * SQLite's `synchronous` setting in WAL mode. NORMAL syncs the WAL at checkpoints only: a power loss may lose
 * the last commits but never corrupts the file. FULL syncs the WAL at every commit: a commit that was answered
 * survives a power loss, at the cost of one fsync per commit (per group of commits, with group commit).
 */
export type SqliteSynchronous = 'NORMAL' | 'FULL';

export type DatabaseConfig =
  // `synchronous` is optional for callers that open a database themselves (tests, tools): NORMAL when absent
  | {
      readonly dialect: 'sqlite';
      readonly path: string;
      readonly synchronous?: SqliteSynchronous;
      /** Threads that run long reads beside the event loop (SQLITE_READ_THREADS); absent: the default. */
      readonly readThreads?: number;
    }
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

/**
 * The documentation of every variable, row for row the README's configuration table (`| \`NAME\` | default |
 * meaning |`, Markdown as it is there): config.test.ts checks that the two agree and that `loadConfig` reads these
 * variables and no other.
 */
export const VARIABLES: readonly VariableDoc[] = [
  { name: 'PORT', default: '`8080`', description: 'TCP port to listen on (1-65535).' },
  { name: 'HOST', default: '`127.0.0.1`', description: 'Interface to listen on (`0.0.0.0` for all).' },
  {
    name: 'PUBLIC_URL',
    default: '`http://localhost:PORT`',
    description:
      'Base URL of every URL the API emits (`rest_url`, `urls.self`, …); http(s), no query or fragment (a trailing `/` is dropped). With `TLS_CERT`, `https://localhost:PORT`.',
  },
  {
    name: 'DATABASE_URL',
    default: 'SQLite file `./data/calendar.db`',
    description:
      '`sqlite:PATH` for SQLite (`sqlite::memory:`: a database in memory, gone when the process ends, `WORKERS` 1), `postgres://user@host:port/db` (or `postgresql://…`) for PostgreSQL.',
  },
  {
    name: 'SQLITE_SYNCHRONOUS',
    default: '`NORMAL`',
    description:
      'SQLite only: `NORMAL` (a power loss may lose the last commits, never the file) or `FULL` (every answered write survives a power loss, at an fsync per commit; group commit shares it).',
  },
  {
    name: 'SQLITE_READ_THREADS',
    default: 'cores − 1, 1 to 4',
    description:
      'SQLite file only: threads, each with a read-only connection, that run the long reads of lists filtered by category, tag or search (a count that looks up every event of a category), so that the other requests are answered meanwhile; 0 to 16, `0` running them on the main connection.',
  },
  {
    name: 'ADMIN_LOGIN',
    default: '(none)',
    description: 'On an empty database: login of the first administrator (letters, digits and `._@-`, at most 60 characters).',
  },
  {
    name: 'ADMIN_PASSWORD',
    default: '(none)',
    description: "With `ADMIN_LOGIN`: that administrator's application password (at least 8 characters).",
  },
  { name: 'SITE_TIMEZONE', default: '`UTC`', description: 'Site time zone: an IANA name, `UTC` or `UTC±N[.5]`.' },
  { name: 'LOG_LEVEL', default: '`info`', description: 'fatal, error, warn, info, debug, trace or silent.' },
  { name: 'BODY_LIMIT', default: '`1048576`', description: 'Largest accepted request body in bytes, 1024 to 1073741824 (larger → 413).' },
  {
    name: 'CORS_ORIGINS',
    default: '`*`',
    description:
      'Origins allowed to call the API from browsers: `*` for any (as WordPress answers every origin), origins (`https://a.example,https://b.example`), or `none` to send no CORS headers.',
  },
  { name: 'CACHE_MB', default: '`64`', description: 'Memory for the response cache of reads, in MiB (0–4096); 0 turns it off (see below).' },
  {
    name: 'FRAGMENT_CACHE_MB',
    default: '`16`',
    description:
      'Memory for events kept serialised, each as a kind of caller sees it, in MiB (0–4096): lists of distinct URLs over the same events read and serialise only the events without one, and a single read with one reads nothing; they die with any write, like the response cache; 0 turns it off.',
  },
  { name: 'WORKERS', default: '`1`', description: 'Service processes sharing the port: a number (1–256), or `auto` for one per CPU core.' },
  {
    name: 'RATE_LIMIT',
    default: '(off)',
    description:
      'Requests per client IP and window, e.g. `600/60s`, `100/1m` or `20/s` (`off`: no limit); over it → `429 rest_too_many_requests` with `Retry-After` (every answer carries `X-RateLimit-Limit`, `-Remaining`, `-Reset`). Counted in each process, or across all of them with `REDIS_URL`.',
  },
  {
    name: 'REDIS_URL',
    default: '(none)',
    description:
      '`redis://[user:password@]host[:port][/db]` (`rediss://` for TLS): a Redis where every process counts `RATE_LIMIT` together. While it cannot be reached, requests are served unlimited (never a 500, never held more than 0.5 s) and a warning is logged.',
  },
  {
    name: 'REDIS_PREFIX',
    default: '`calendar:`',
    description:
      'Start of every key written to `REDIS_URL`, so deployments sharing one Redis keep their counts apart (letters, digits and `:._-`, at most 100 characters).',
  },
  {
    name: 'REQUEST_TIMEOUT',
    default: '`30`',
    description: 'Seconds a client has to send a whole request (1–3600); slower ones get 408 and are cut off.',
  },
  {
    name: 'WP_PATHS',
    default: '`on`',
    description:
      'Also serve the API under `/wp-json/tribe/events/v1/…`, with a WordPress root index at `/wp-json/` (see below); `off` turns both off.',
  },
  {
    name: 'RECURRENCE_HORIZON_MONTHS',
    default: '`60`',
    description:
      "How far ahead the occurrences of a recurring series without an end exist (months, 1–240); moved forward daily, and further (up to twice as far) when a list's window reaches past it.",
  },
  {
    name: 'SYNC_RETENTION_DAYS',
    default: '`30`',
    description:
      'How long the change log keeps changes (days, 1–3650): a sync token older than that, or from before changes that left the log, answers `410` and the client starts over (see [Keeping a copy in sync](#keeping-a-copy-in-sync)).',
  },
  { name: 'SITE_NAME', default: '`Events Calendar`', description: 'The site name the WordPress root index shows.' },
  {
    name: 'SITE_DESCRIPTION',
    default: '`Events, venues, organizers, event categories and tags over HTTP.`',
    description: 'The site tagline the WordPress root index shows.',
  },
  {
    name: 'TLS_CERT',
    default: '(none: plain HTTP)',
    description: 'With `TLS_KEY`: path of a PEM certificate (chain); the service then speaks HTTPS itself.',
  },
  { name: 'TLS_KEY', default: '(none)', description: "With `TLS_CERT`: path of that certificate's PEM private key (not encrypted)." },
  {
    name: 'IMPORT_ALLOW_PRIVATE',
    default: '`off`',
    description:
      '`on` (or `1`) lets imports fetch URLs on private, loopback, link-local and unique-local addresses (tests, trusted networks); off, such URLs are refused, redirects included.',
  },
  {
    name: 'IMPORT_PARSE_TIMEOUT',
    default: '`20`',
    description: 'Seconds parsing one imported .ics file may take (1–600); longer (a VTIMEZONE whose rules never end) fails the job.',
  },
  {
    name: 'IMPORT_RETRY_BASE_MS',
    default: '`1000`',
    description:
      'Site imports: the first wait after a failed request (doubling on each retry, at most a minute; a `Retry-After` the site sends wins), 1–60000 ms.',
  },
  {
    name: 'PAGES',
    default: '`on`',
    description:
      "Serve the calendar as HTML pages at the original's addresses (`/events/`, `/event/<slug>/`, …, see below) and the embed; `off` turns them off.",
  },
  { name: 'PAGES_DEFAULT_VIEW', default: '`list`', description: 'What `/events/` shows: `list` or `month`.' },
  {
    name: 'EMBED_ORIGINS',
    default: '`*`',
    description:
      'Sites that may frame `/events/embed` (CSP `frame-ancestors`): origins (`https://a.example,https://b.example`), `*` for any, or `none`. The other pages may be framed by the site itself only.',
  },
  {
    name: 'REQUIRE_IF_MATCH',
    default: '`off`',
    description:
      '`on`: an update or delete of an existing event, venue, organizer, category or tag must carry `If-Match` (or `If-Unmodified-Since`), else `428 precondition-required` (see "Conditional requests"); creates are not affected.',
  },
  {
    name: 'WEBHOOKS_ALLOW_PRIVATE',
    default: '`off`',
    description:
      '`on` (or `1`) lets webhook endpoints be `http:` URLs and private, loopback, link-local or unique-local addresses (tests, development); off, only `https:` URLs whose every address is public, checked when made and at every attempt.',
  },
  {
    name: 'WEBHOOKS_VERIFY',
    default: '`on`',
    description:
      'A new webhook endpoint, or a new URL of one (`PATCH`), must answer a signed `webhook.test` with a 2xx within 10 s, or it is refused (`400 webhook-endpoint-unreachable`); `off` skips the check.',
  },
  {
    name: 'WEBHOOKS_LEASE_SECONDS',
    default: '`60`',
    description:
      'How long a process holds a webhook delivery it claimed to send (1–3600 s; renewed while it waits its turn); what a process that died held is sent by another (or after the restart) once this runs out. Keep it above the 15 s timeout.',
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

/** A Redis URL as ioredis reads it; refused with a message that never repeats the password. */
function parseRedisUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('REDIS_URL', 'is not a valid URL (redis://host:port/db)');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError('REDIS_URL', `must start with redis:// or rediss://, not ${url.protocol}//`);
  }
  if (url.hostname === '') throw new ConfigError('REDIS_URL', 'needs a host (redis://host:port/db)');
  if (!/^\/?(\d{1,5})?$/.test(url.pathname)) throw new ConfigError('REDIS_URL', 'may end only in a database number (/0, /1, …)');
  // ioredis would read any query parameter as a client option: none is taken, so nothing hides there
  if (url.search !== '' || url.hash !== '') throw new ConfigError('REDIS_URL', 'must not carry a query string or fragment');
  return raw;
}

const SYNCHRONOUS: readonly SqliteSynchronous[] = ['NORMAL', 'FULL'];

function parseSynchronous(raw: string | undefined): SqliteSynchronous {
  if (raw === undefined) return 'NORMAL';
  const upper = raw.toUpperCase() as SqliteSynchronous;
  // OFF and EXTRA exist in SQLite; OFF can corrupt the file on a power loss, EXTRA adds nothing in WAL mode
  if (!SYNCHRONOUS.includes(upper)) throw new ConfigError('SQLITE_SYNCHRONOUS', `must be NORMAL or FULL, got "${raw}"`);
  return upper;
}

function parseDatabase(raw: string | undefined, synchronous: SqliteSynchronous, readThreads: number | undefined): DatabaseConfig {
  const threads = readThreads === undefined ? {} : { readThreads };
  if (raw === undefined) return { dialect: 'sqlite', path: './data/calendar.db', synchronous, ...threads };
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/calendar.db');
    return { dialect: 'sqlite', path, synchronous, ...threads };
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

const SWITCH: Record<string, boolean> = { on: true, true: true, yes: true, '1': true, off: false, false: false, no: false, '0': false };

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const on = SWITCH[raw.toLowerCase()];
  if (on === undefined) throw new ConfigError(name, `must be on or off, got "${raw}"`);
  return on;
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env): Config {
  const port = integer(env, 'PORT', 8080, 1, 65535);
  const host = value(env, 'HOST') ?? '127.0.0.1';

  const certPath = value(env, 'TLS_CERT');
  const keyPath = value(env, 'TLS_KEY');
  if ((certPath === undefined) !== (keyPath === undefined)) {
    throw new ConfigError(certPath === undefined ? 'TLS_CERT' : 'TLS_KEY', 'TLS_CERT and TLS_KEY go together');
  }
  const tls = certPath !== undefined && keyPath !== undefined ? Object.freeze({ certPath, keyPath }) : undefined;

  // served over TLS, the emitted URLs must be https ones to be followable
  let publicUrl = value(env, 'PUBLIC_URL') ?? `${tls ? 'https' : 'http'}://localhost:${port}`;
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
  const database = parseDatabase(
    value(env, 'DATABASE_URL'),
    parseSynchronous(value(env, 'SQLITE_SYNCHRONOUS')),
    value(env, 'SQLITE_READ_THREADS') === undefined ? undefined : integer(env, 'SQLITE_READ_THREADS', 0, 0, 16),
  );

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

  const originList = (name: string, raw: string) => {
    const list = raw
      .split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter((o) => o !== '');
    for (const origin of list) {
      if (origin === '*') continue;
      let url: URL | undefined;
      try {
        url = new URL(origin);
      } catch {
        url = undefined;
      }
      if (!url || url.origin !== origin) throw new ConfigError(name, `not an origin (scheme://host[:port]): "${origin}"`);
    }
    return Object.freeze(list.includes('*') ? ['*'] : list);
  };
  const embedRaw = value(env, 'EMBED_ORIGINS') ?? '*';
  const embedOrigins = embedRaw.trim().toLowerCase() === 'none' ? Object.freeze([] as string[]) : originList('EMBED_ORIGINS', embedRaw);
  const pagesDefaultView = (value(env, 'PAGES_DEFAULT_VIEW') ?? 'list').toLowerCase();
  if (pagesDefaultView !== 'list' && pagesDefaultView !== 'month')
    throw new ConfigError('PAGES_DEFAULT_VIEW', `must be list or month, got "${pagesDefaultView}"`);

  const corsRaw = value(env, 'CORS_ORIGINS') ?? '*';
  const corsOrigins = /^(none|off)$/i.test(corsRaw) ? Object.freeze([] as string[]) : originList('CORS_ORIGINS', corsRaw);

  let rateLimit: Config['rateLimit'];
  const rate = value(env, 'RATE_LIMIT');
  if (rate !== undefined && rate.toLowerCase() !== 'off') {
    const m = /^(\d+)\s*\/\s*(\d+)?\s*(s|m|h)$/i.exec(rate);
    if (!m || Number(m[1]) < 1) throw new ConfigError('RATE_LIMIT', `must look like 600/60s, 100/1m or 20/s, got "${rate}"`);
    const unit = { s: 1000, m: 60_000, h: 3_600_000 }[m[3].toLowerCase() as 's' | 'm' | 'h'];
    rateLimit = Object.freeze({ max: Number(m[1]), windowMs: Number(m[2] ?? 1) * unit });
  }

  const redisUrl = value(env, 'REDIS_URL');
  const redisPrefix = value(env, 'REDIS_PREFIX') ?? 'calendar:';
  if (!/^[A-Za-z0-9:._-]{1,100}$/.test(redisPrefix)) {
    throw new ConfigError('REDIS_PREFIX', 'may hold only letters, digits and : . _ - (at most 100 characters)');
  }
  const redis = redisUrl === undefined ? undefined : Object.freeze({ url: parseRedisUrl(redisUrl), prefix: redisPrefix });

  const workers = value(env, 'WORKERS')?.toLowerCase() === 'auto' ? availableParallelism() : integer(env, 'WORKERS', 1, 1, 256);
  // each process would open a database of its own, and a write through one would be missing from the others
  if (workers > 1 && database.dialect === 'sqlite' && database.path === ':memory:') {
    throw new ConfigError('WORKERS', 'a database in memory (DATABASE_URL=sqlite::memory:) belongs to one process: use 1, or a file');
  }

  return Object.freeze({
    port,
    host,
    publicUrl,
    database: Object.freeze(database),
    adminLogin,
    adminPassword,
    siteTimezone,
    recurrenceHorizonMonths: integer(env, 'RECURRENCE_HORIZON_MONTHS', 60, 1, 240),
    syncRetentionDays: integer(env, 'SYNC_RETENTION_DAYS', 30, 1, 3650),
    logLevel,
    bodyLimit,
    corsOrigins,
    cacheBytes: integer(env, 'CACHE_MB', 64, 0, 4096) * 1024 * 1024,
    fragmentBytes: integer(env, 'FRAGMENT_CACHE_MB', 16, 0, 4096) * 1024 * 1024,
    workers,
    rateLimit,
    redis,
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT', 30, 1, 3600) * 1000,
    wpPaths: onOff(env, 'WP_PATHS', true),
    siteName: value(env, 'SITE_NAME') ?? 'Events Calendar',
    siteDescription: value(env, 'SITE_DESCRIPTION') ?? 'Events, venues, organizers, event categories and tags over HTTP.',
    tls,
    importAllowPrivate: onOff(env, 'IMPORT_ALLOW_PRIVATE', false),
    webhooksAllowPrivate: onOff(env, 'WEBHOOKS_ALLOW_PRIVATE', false),
    webhooksVerify: onOff(env, 'WEBHOOKS_VERIFY', true),
    webhooksLeaseMs: integer(env, 'WEBHOOKS_LEASE_SECONDS', 60, 1, 3600) * 1000,
    importParseTimeoutMs: integer(env, 'IMPORT_PARSE_TIMEOUT', 20, 1, 600) * 1000,
    importRetryBaseMs: integer(env, 'IMPORT_RETRY_BASE_MS', 1000, 1, 60_000),
    pages: onOff(env, 'PAGES', true),
    pagesDefaultView,
    embedOrigins,
    requireIfMatch: onOff(env, 'REQUIRE_IF_MATCH', false),
  });
}

export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** When the certificate stops being valid. */
  readonly validTo: Date;
}

function readPem(name: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(name, `cannot read "${path}": ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/**
 * The certificate and key of `TLS_CERT`/`TLS_KEY`, checked: each parses, and the key is the certificate's. Kept
 * out of `loadConfig` so that the other commands (`migrate`, `users`) do not need to read a key file that may
 * be readable only by the service's account; `serve` calls it before it opens anything.
 */
export function readTls(config: Pick<Config, 'tls'>): TlsFiles | undefined {
  if (!config.tls) return undefined;
  const cert = readPem('TLS_CERT', config.tls.certPath);
  const key = readPem('TLS_KEY', config.tls.keyPath);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new ConfigError('TLS_CERT', `"${config.tls.certPath}" holds no PEM certificate`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError('TLS_KEY', `"${config.tls.keyPath}" holds no unencrypted PEM private key`);
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ConfigError('TLS_KEY', `"${config.tls.keyPath}" is not the key of the certificate in TLS_CERT`);
  }
  return { cert, key, validTo: new Date(certificate.validTo) };
}
