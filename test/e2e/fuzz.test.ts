/**
 * Bad input, at random (fast-check): adversarial query strings and bodies — wrong types, huge and unicode
 * strings, SQL and HTML fragments, deep JSON, wrong content types, duplicate parameters — for every route and
 * method, from every kind of caller. Properties: never a 5xx; every error is JSON of the documented shape; a
 * refused write changes nothing (a digest of every table before and after).
 *
 * `npm test` runs a bounded number with a fixed seed; `npm run fuzz` runs many more with a random one
 * (FUZZ_RUNS, FUZZ_SEED).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { makeCategory, makeEvent, makeLinked, makeTag } from '../helpers/factories.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const SEED =
  process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 20261122;
export const fuzzStats = { requests: 0 };

/** Percent-encodes the UTF-8 bytes (lone surrogates become U+FFFD); `raw` strings go through untouched. */
function enc(text: string): string {
  if (text.startsWith('RAW:')) return text.slice(4);
  return [...Buffer.from(text, 'utf8')]
    .map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

const TABLES = ['users', 'app_passwords', 'posts', 'events', 'event_organizers', 'venues', 'organizers', 'images', 'terms', 'term_relationships', 'data_version', 'event_day_counts'];

async function digest(t: TestApp): Promise<string> {
  const hash = createHash('sha1');
  for (const table of TABLES) {
    const { rows } = await sql`select * from ${sql.table(table)}`.execute(t.storage.db);
    const lines = rows.map((r) => JSON.stringify(r)).sort();
    hash.update(`${table}:${lines.join('\n')}\n`);
  }
  return hash.digest('hex');
}

const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    "' OR 1=1 --",
    '1; DROP TABLE posts; --',
    '"); delete from events; --',
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '../../etc/passwd',
    '%00',
    '\u0000',
    '\uD800',
    '😀🎉',
    'null',
    'undefined',
    'NaN',
    '-1',
    '0',
    '1.5',
    '1e309',
    '99999999999999999999999',
    'true',
    'false',
    ' ',
    '',
    ',,,',
    'publish,draft,trash',
    'tomorrow 9am',
    '2018-02-30 25:61',
    'http://',
    'javascript:alert(1)',
    'https://example.org/a.png',
    'RAW:%E0%A4%A',
    'RAW:%',
    'RAW:%zz%%',
    'RAW:a%00b',
    '__proto__',
    'constructor',
  ),
  fc.integer().map(String),
  fc.string({ minLength: 2000, maxLength: 20000 }),
);

const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    nasty,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(nasty, fc.constantFrom('id', 'venue', 'organizer', 'name', '__proto__')), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** JSON nested deeper than any handler walks. */
const deepJson = fc.integer({ min: 50, max: 3000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

describe('fuzzing every route with bad input', () => {
  let t: TestApp;
  let ids: Record<string, number[]>;
  let slugs: string[];
  let routes: { method: string; path: string; args: string[] }[];
  before(async () => {
    t = await createTestApp({ BODY_LIMIT: '65536' });
    const cat = await makeCategory(t, { name: 'Fuzz cat' });
    const tag = await makeTag(t, { name: 'fuzz tag' });
    const venue = await makeLinked(t, 'venue', { venue: 'Fuzz venue' });
    const organizer = await makeLinked(t, 'organizer', { organizer: 'Fuzz organizer' });
    const published = await makeEvent(t, { title: 'Fuzz event', categories: [cat.id], tags: [tag.id], venue: venue.id, organizer: [organizer.id] });
    const draft = await makeEvent(t, { title: 'Fuzz draft', status: 'draft' }, 'contributor');
    ids = { event: [published.id, draft.id], venue: [venue.id], organizer: [organizer.id], term: [cat.id, tag.id] };
    slugs = [published.slug, venue.slug, organizer.slug];
    routes = [];
    for (const spec of t.app.registry.specs) {
      for (const method of spec.methods) routes.push({ method, path: spec.path, args: Object.keys(spec.args) });
    }
  });
  after(() => t.close());

  const idValue = fc.oneof(
    fc.constantFrom(...[0, 1, 2, 3, 5, 8, 13, 99999, 2147483648, 9007199254740991].map(String)),
    fc.constant('ID'),
  );

  const requestArb = () =>
    fc.record({
      route: fc.constantFrom(...routes),
      id: idValue,
      slug: fc.oneof(fc.constantFrom(...slugs), nasty.filter((s) => s.length > 0 && s.length < 300)),
      caller: fc.constantFrom<Caller>('anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator', 'bad'),
      query: fc.array(fc.tuple(fc.oneof(fc.constantFrom('page', 'per_page', 'status', 'include', 'categories', 'search', '_fields', '_method', 'start_date', 'x[y][z]', 'a[]'), nasty), nasty), { maxLength: 6 }),
      useArgNames: fc.boolean(),
      body: fc.oneof(
        fc.record({ kind: fc.constant('json' as const), value: fc.dictionary(nasty, jsonValue, { maxKeys: 8 }) }),
        fc.record({ kind: fc.constant('json-args' as const), value: fc.array(jsonValue, { minLength: 1, maxLength: 8 }) }),
        fc.record({ kind: fc.constant('raw-json' as const), value: fc.oneof(nasty, deepJson) }),
        fc.record({ kind: fc.constant('form' as const), value: fc.array(fc.tuple(nasty, nasty), { maxLength: 8 }) }),
        fc.record({ kind: fc.constant('other' as const), value: fc.tuple(fc.constantFrom('text/plain', 'multipart/form-data; boundary=x', 'application/xml', 'image/png'), nasty) }),
        fc.constant({ kind: 'none' as const, value: undefined }),
      ),
    });

  it(`never answers 5xx, always answers errors in the documented shape, and refused writes change nothing (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(requestArb(), async (r) => {
        const { route } = r;
        const idFor = () => {
          const pool = route.path.startsWith('/events') ? ids.event : route.path.startsWith('/venues') ? ids.venue : route.path.startsWith('/organizers') ? ids.organizer : ids.term;
          return r.id === 'ID' ? String(pool[0]) : r.id;
        };
        const path = route.path.replace(':id', idFor()).replace(':slug', enc(r.slug));
        const query = r.query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
        let raw: { type: string; body: string } | undefined;
        const b = r.body;
        if (b.kind === 'json') raw = { type: 'application/json', body: JSON.stringify(b.value) };
        if (b.kind === 'json-args') {
          const obj: Record<string, unknown> = {};
          b.value.forEach((v, i) => (obj[route.args[i % Math.max(1, route.args.length)] ?? 'x'] = v));
          raw = { type: 'application/json', body: JSON.stringify(obj) };
        }
        if (b.kind === 'raw-json') raw = { type: 'application/json', body: b.value };
        if (b.kind === 'form') raw = { type: 'application/x-www-form-urlencoded', body: b.value.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&') };
        if (b.kind === 'other') raw = { type: b.value[0], body: b.value[1] };

        const write = route.method !== 'GET';
        const before = write ? await digest(t) : '';
        const res = await t.request(route.method, path === '' ? '/calendar/events/v1' : path, { as: r.caller, query: query || undefined, raw });
        fuzzStats.requests++;
        assert.ok(res.status < 500, `${route.method} ${path}?${query} → ${res.status} ${res.text.slice(0, 500)}`);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        if (res.status >= 400) {
          assert.equal(typeof res.body?.code, 'string', res.text.slice(0, 300));
          assert.equal(typeof res.body.message, 'string');
          assert.equal(res.body.data?.status, res.status);
          if (write) assert.equal(await digest(t), before, `a refused ${route.method} ${path} changed the database`);
        } else {
          assert.ok(res.body !== undefined, 'a success has a JSON body');
        }
      }),
      { numRuns: RUNS, seed: SEED, verbose: 1 },
    );
    process.stdout.write(`# fuzz: ${fuzzStats.requests} requests, seed ${SEED}\n`);
  });
});
