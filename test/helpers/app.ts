/**
 * A test app on a fresh database, with one user per role (plus a second author and contributor for
 * "someone else's" cases), and a small HTTP client over `app.inject()`.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config/config.js';
import { type Actor, ANONYMOUS, ROLES, type Role } from '../../src/domain/actor.js';
import type { OnQuery } from '../../src/storage/dialects/dialect.js';
import type { Storage } from '../../src/storage/storage.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { freePort } from './server.js';

export const BASE = '/calendar/events/v1';
export const PUBLIC_URL = 'http://calendar.test';

export type Caller = Role | 'anonymous' | 'author2' | 'contributor2' | 'bad';

export interface TestUser {
  id: number;
  login: string;
  password: string;
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
  text: string;
}

export interface RequestOptions {
  as?: Caller;
  /** JSON body (object) */
  json?: unknown;
  /** form-encoded body (string or flat object) */
  form?: string | Record<string, string>;
  query?: string | Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  /** raw body with its content type */
  raw?: { type: string; body: string | Buffer };
}

export interface TestApp {
  app: FastifyInstance;
  storage: Storage;
  config: Config;
  db: TestDatabase;
  users: Record<Exclude<Caller, 'anonymous' | 'bad'>, TestUser>;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  get(path: string, options?: RequestOptions): Promise<Response>;
  post(path: string, options?: RequestOptions): Promise<Response>;
  put(path: string, options?: RequestOptions): Promise<Response>;
  patch(path: string, options?: RequestOptions): Promise<Response>;
  del(path: string, options?: RequestOptions): Promise<Response>;
  authHeader(caller: Caller): Record<string, string>;
  /** The actor a caller is, for calling services directly (the users made for this app). */
  actor(caller: Exclude<Caller, 'bad'>): Actor;
  close(): Promise<void>;
}

export async function createTestApp(
  env: Record<string, string> = {},
  /** (SQLite: a file instead of memory, and its read threads: see createTestDatabase) */
  options: { onQuery?: OnQuery; sqlitePath?: string; sqliteReadThreads?: number } = {},
): Promise<TestApp> {
  const db = await createTestDatabase(options);
  const config = loadConfig({ PUBLIC_URL, LOG_LEVEL: 'silent', ...env });
  const app = await buildApp(config, db.storage, { logger: false });
  await app.ready();

  const users = {} as TestApp['users'];
  const makeUser = async (key: keyof TestApp['users'], role: Role) => {
    const created = await app.services.users.add({ login: key, role, email: `${key}@calendar.test` });
    const row = await db.storage.users.findByLogin(key);
    users[key] = { id: row!.id, login: key, password: created.password };
  };
  for (const role of ROLES) await makeUser(role, role);
  await makeUser('author2', 'author');
  await makeUser('contributor2', 'contributor');

  const authHeader = (caller: Caller): Record<string, string> => {
    if (caller === 'anonymous') return {};
    if (caller === 'bad') return { authorization: `Basic ${Buffer.from('administrator:wrong-password').toString('base64')}` };
    const u = users[caller];
    return { authorization: `Basic ${Buffer.from(`${u.login}:${u.password}`).toString('base64')}` };
  };

  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<Response> => {
    const headers: Record<string, string> = { ...authHeader(options.as ?? 'anonymous'), ...(options.headers ?? {}) };
    let payload: string | Buffer | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = typeof options.form === 'string' ? options.form : new URLSearchParams(options.form).toString();
    } else if (options.raw !== undefined) {
      headers['content-type'] = options.raw.type;
      payload = options.raw.body;
    }
    const absolute = path.startsWith('/calendar') || path.startsWith('/wp-json') || path.startsWith('/healthz') || path === '/';
    let url = absolute ? path : `${BASE}${path}`;
    if (options.query !== undefined) {
      const q =
        typeof options.query === 'string'
          ? options.query
          : new URLSearchParams(Object.entries(options.query).map(([k, v]) => [k, String(v)] as [string, string])).toString();
      url += (url.includes('?') ? '&' : '?') + q;
    }
    const res = await app.inject({ method: method as any, url, headers, payload });
    let body: any;
    try {
      body = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, headers: res.headers, body, text: res.body };
  };

  return {
    app,
    storage: db.storage,
    config,
    db,
    users,
    request,
    get: (p, o) => request('GET', p, o),
    post: (p, o) => request('POST', p, o),
    put: (p, o) => request('PUT', p, o),
    patch: (p, o) => request('PATCH', p, o),
    del: (p, o) => request('DELETE', p, o),
    authHeader,
    actor: (caller) =>
      caller === 'anonymous'
        ? ANONYMOUS
        : {
            kind: 'user',
            id: users[caller].id,
            login: users[caller].login,
            role: caller === 'author2' ? 'author' : caller === 'contributor2' ? 'contributor' : caller,
          },
    async close() {
      await app.close();
      await db.drop();
    },
  };
}

export interface ListeningTestApp extends TestApp {
  /** `http://127.0.0.1:PORT`, which is also its PUBLIC_URL, so the links in its pages and payloads lead back to it. */
  base: string;
}

/** A test app on a real port of 127.0.0.1, for what `inject()` cannot be: a browser, another origin's page. */
export async function createListeningTestApp(env: Record<string, string> = {}): Promise<ListeningTestApp> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ ...env, PUBLIC_URL: base });
  try {
    await t.app.listen({ port, host: '127.0.0.1' });
  } catch (error) {
    await t.close();
    throw error;
  }
  return { ...t, base };
}
