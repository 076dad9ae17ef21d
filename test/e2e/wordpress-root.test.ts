/**
 * The WordPress root index `GET /wp-json/`, against a recording of a real WordPress site running the original
 * (`test/fixtures/wordpress/`), and a client of the original that is configured with nothing but a site URL,
 * over real HTTP.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort } from '../helpers/server.js';

/** The recorded root index of a WordPress 7 site running TEC 6.17 (from dist/test/e2e to the repository's test/). */
const recorded: any = JSON.parse(readFileSync(new URL('../../../test/fixtures/wordpress/wp-json-root.tec-6.17.json', import.meta.url), 'utf8')).body;

const get = async (t: TestApp, url: string, headers: Record<string, string> = {}, method = 'GET') => {
  const res = await t.app.inject({ method: method as any, url, headers });
  const json = res.body !== '' && String(res.headers['content-type']).startsWith('application/json');
  return { status: res.statusCode, headers: res.headers, text: res.body, body: json ? JSON.parse(res.body) : undefined };
};

/** The offset of a zone now, in hours, from Intl's own formatting (`GMT-5`, `GMT+5:45`), not from our zone code. */
function intlOffsetHours(zone: string): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'shortOffset' })
    .formatToParts(new Date())
    .find((p) => p.type === 'timeZoneName')!.value;
  const m = /^GMT(?:([+-])(\d{1,2})(?::(\d{2}))?)?$/.exec(name);
  assert.ok(m, name);
  if (!m[1]) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) + Number(m[3] ?? 0) / 60);
}

describe('WordPress root index', () => {
  let t: TestApp;
  before(
    async () => (t = await createTestApp({ SITE_NAME: 'Jazz Club', SITE_DESCRIPTION: 'Concerts every night', SITE_TIMEZONE: 'America/New_York' })),
  );
  after(() => t.close());

  it('has the keys of a WordPress site running the original, in its order', async () => {
    const res = await get(t, '/wp-json/');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json; charset=UTF-8');
    assert.equal(res.headers.allow, 'GET');
    assert.deepEqual(Object.keys(res.body), Object.keys(recorded));
    for (const key of Object.keys(recorded)) assert.equal(typeof res.body[key], typeof recorded[key], key);
  });

  it('names the site, its URL and its time zone', async () => {
    const res = await get(t, '/wp-json');
    assert.equal(res.body.name, 'Jazz Club');
    assert.equal(res.body.description, 'Concerts every night');
    assert.equal(res.body.url, PUBLIC_URL);
    assert.equal(res.body.home, PUBLIC_URL);
    assert.equal(res.body.timezone_string, 'America/New_York');
    assert.equal(res.body.gmt_offset, intlOffsetHours('America/New_York'));
    assert.ok([-5, -4].includes(res.body.gmt_offset));
  });

  it("lists the original's namespace, so importers recognise the site", async () => {
    const res = await get(t, '/wp-json/');
    assert.deepEqual(res.body.namespaces, ['tribe/events/v1']);
    assert.ok(res.body.authentication['application-passwords'], 'application passwords are how clients authenticate');
    assert.deepEqual(res.body._links.help, [{ href: `${PUBLIC_URL}/calendar/events/v1/doc` }]);
    assert.equal((await get(t, '/calendar/events/v1/doc')).status, 200);
  });

  it('lists every route as WordPress keys them under /wp-json, generated from the registry', async () => {
    const { routes } = (await get(t, '/wp-json/')).body;
    const keys = Object.keys(routes);
    assert.equal(keys[0], '/');
    assert.deepEqual(routes['/'], {
      namespace: '',
      methods: ['GET'],
      endpoints: [{ methods: ['GET'], args: { context: { default: 'view', required: false } } }],
      _links: { self: [{ href: `${PUBLIC_URL}/wp-json/` }] },
    });
    const namespaced = keys.slice(1);
    assert.ok(namespaced.every((k) => k.startsWith('/tribe/events/v1')));
    const registryPaths = new Set(t.app.registry.specs.map((s) => s.path));
    assert.equal(namespaced.length, registryPaths.size, 'one entry per registered path');

    // the same routes, methods and arguments as the canonical namespace index, under the original's names
    const canonical = (await get(t, '/calendar/events/v1')).body.routes;
    assert.deepEqual(
      namespaced,
      Object.keys(canonical).map((k) => k.replace('/calendar/events/v1', '/tribe/events/v1')),
    );
    for (const key of namespaced) {
      const entry = routes[key];
      const twin = canonical[key.replace('/tribe/events/v1', '/calendar/events/v1')];
      assert.equal(entry.namespace, 'tribe/events/v1', key);
      assert.deepEqual(entry.methods, twin.methods, key);
      assert.deepEqual(entry.endpoints, twin.endpoints, key);
      assert.deepEqual(entry._links, twin._links, `${key}: self links stay canonical`);
      // each key answers under /wp-json (parameterless ones at least), and so does its canonical self link
      if (!key.includes('(?P<')) {
        // (a key is a pattern: `events\.ics` is the address `events.ics`; import jobs are for editors and
        // administrators, webhooks for administrators: anonymous callers get the route's 401, not a 404; the FullCalendar feed needs its
        // range: a 400 naming start and end, not a 404)
        const status = key.endsWith('/imports') || key.endsWith('/webhooks') ? 401 : key.endsWith('/events/feed') ? 400 : 200;
        assert.equal((await get(t, `/wp-json${key.replace(/\\\./g, '.')}`)).status, status, key);
        assert.equal((await get(t, entry._links.self[0].href.slice(PUBLIC_URL.length))).status, status, key);
      }
    }
  });

  it('lists the same routes, methods and links as the original', async () => {
    const { routes } = (await get(t, '/wp-json/')).body;
    const original = Object.keys(recorded.routes).filter((k) => k.startsWith('/tribe/events/v1'));
    // the original's routes in its order, and beside them only the routes of features it lacks (FEATURES.md §0 C3)
    const added = [
      '/tribe/events/v1/events/(?P<id>\\d+)/occurrences',
      '/tribe/events/v1/events/(?P<id>\\d+)/split',
      '/tribe/events/v1/events\\.ics',
      '/tribe/events/v1/events/(?P<id>\\d+)\\.ics',
      '/tribe/events/v1/events/by-slug/(?P<slug>[^/]+)\\.ics',
      '/tribe/events/v1/events/feed',
      '/tribe/events/v1/imports',
      '/tribe/events/v1/imports/(?P<id>\\d+)',
      '/tribe/events/v1/webhooks',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)/test',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)/rotate-secret',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)/deliveries',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)/deliveries/(?P<delivery>[^/]+)',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)/deliveries/(?P<delivery>[^/]+)/redeliver',
      '/tribe/events/v1/webhooks/(?P<id>\\d+)/replay',
    ];
    const ours = Object.keys(routes).slice(1);
    assert.deepEqual(
      ours.filter((k) => !added.includes(k)),
      original,
    );
    assert.deepEqual(
      ours.filter((k) => added.includes(k)),
      added,
    );
    for (const key of original) {
      assert.deepEqual(routes[key].methods, recorded.routes[key].methods, key);
      assert.deepEqual(
        routes[key].endpoints.map((e: any) => e.methods),
        recorded.routes[key].endpoints.map((e: any) => e.methods),
        key,
      );
      assert.equal('_links' in routes[key], '_links' in recorded.routes[key], key);
    }
    assert.deepEqual({ ...routes['/'], _links: undefined }, { ...recorded.routes['/'], _links: undefined });
  });

  it('answers HEAD, OPTIONS, _fields, _envelope and _jsonp as WordPress does', async () => {
    const head = await get(t, '/wp-json/', {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    const options = await get(t, '/wp-json/', {}, 'OPTIONS');
    assert.equal(options.status, 200);
    assert.equal(options.headers.allow, 'GET');
    assert.deepEqual(options.body.methods, ['GET']);
    const fields = await get(t, '/wp-json/?_fields=name,timezone_string,gmt_offset');
    assert.deepEqual(Object.keys(fields.body), ['name', 'gmt_offset', 'timezone_string']);
    const envelope = await get(t, '/wp-json/?_envelope&_fields=name');
    assert.deepEqual(envelope.body, { body: { name: 'Jazz Club' }, status: 200, headers: { Allow: 'GET' } });
    const raw = await t.app.inject({ url: '/wp-json/?_jsonp=site&_fields=name' });
    assert.equal(raw.body, '/**/site({"name":"Jazz Club"})');
  });

  it('checks credentials like every other route', async () => {
    const bad = await get(t, '/wp-json/', t.authHeader('bad'));
    assert.equal(bad.status, 401);
    assert.equal(bad.body.code, 'incorrect_password');
    assert.equal((await get(t, '/wp-json/', t.authHeader('subscriber'))).status, 200);
  });

  it('takes gmt_offset and timezone_string from SITE_TIMEZONE as WordPress does', async () => {
    const cases: [string, number, string][] = [
      ['UTC', 0, 'UTC'],
      ['UTC+2', 2, ''],
      ['UTC-3.5', -3.5, ''],
      ['UTC+5:45', 5.75, ''],
      ['UTC-0', 0, ''],
      ['Asia/Kolkata', intlOffsetHours('Asia/Kolkata'), 'Asia/Kolkata'],
      ['Asia/Kathmandu', intlOffsetHours('Asia/Kathmandu'), 'Asia/Kathmandu'],
      ['Europe/Berlin', intlOffsetHours('Europe/Berlin'), 'Europe/Berlin'],
    ];
    for (const [zone, offset, name] of cases) {
      const app = await buildApp(loadConfig({ PUBLIC_URL, SITE_TIMEZONE: zone, LOG_LEVEL: 'silent' }), t.storage, { logger: false });
      try {
        const body = (await app.inject({ url: '/wp-json/?_fields=gmt_offset,timezone_string' })).json();
        assert.deepEqual(body, { gmt_offset: offset, timezone_string: name }, zone);
        assert.ok(!Object.is(body.gmt_offset, -0));
      } finally {
        await app.close();
      }
    }
    assert.equal(intlOffsetHours('Asia/Kathmandu'), 5.75, 'the quarter-hour case is covered');
  });
});

describe('a client of the original, configured with a site URL only', () => {
  let db: TestDatabase;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let site: string;
  let auth: string;

  before(async () => {
    db = await createTestDatabase();
    const port = await freePort();
    site = `http://127.0.0.1:${port}`;
    app = await buildApp(loadConfig({ PUBLIC_URL: site, SITE_TIMEZONE: 'Europe/Paris', LOG_LEVEL: 'silent' }), db.storage, { logger: false });
    await app.listen({ port, host: '127.0.0.1' });
    const { password } = await app.services.users.add({ login: 'importer', role: 'editor', email: 'importer@calendar.test' });
    auth = `Basic ${Buffer.from(`importer:${password}`).toString('base64')}`;
  });
  after(async () => {
    await app?.close();
    await db?.drop();
  });

  it('discovers the site, creates, lists page by page, updates and deletes through /wp-json/tribe/events/v1', async () => {
    // what such clients do: the site URL plus the original's path, nothing else configured
    const api = `${site}/wp-json/tribe/events/v1`;
    const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });

    const root = await json(await fetch(`${site}/wp-json/`));
    assert.equal(root.status, 200);
    assert.ok(root.body.namespaces.includes('tribe/events/v1'));
    assert.equal(root.body.timezone_string, 'Europe/Paris');

    const category = await json(
      await fetch(`${api}/categories`, { method: 'POST', headers: { authorization: auth }, body: new URLSearchParams({ name: 'Jazz' }) }),
    );
    assert.equal(category.status, 201);

    const ids: number[] = [];
    for (const day of [1, 2, 3]) {
      const created = await json(
        await fetch(`${api}/events`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            title: `Jam session ${day}`,
            start_date: `+${day} days 20:00`,
            end_date: `+${day} days 23:00`,
            categories: [category.body.id],
          }),
        }),
      );
      assert.equal(created.status, 201);
      assert.equal(created.body.timezone, 'Europe/Paris');
      ids.push(created.body.id);
    }

    // page through, following next_rest_url as the clients do (it is the canonical URL: it works as well)
    const seen: number[] = [];
    let next: string | undefined = `${api}/events?per_page=2&categories=${category.body.id}`;
    while (next) {
      const page = await json(await fetch(next));
      assert.equal(page.status, 200);
      seen.push(...page.body.events.map((e: any) => e.id));
      next = page.body.next_rest_url;
      if (next) assert.ok(next.startsWith(`${site}/calendar/events/v1/events`), next);
    }
    assert.deepEqual(seen, ids);

    const updated = await json(
      await fetch(`${api}/events/${ids[0]}`, {
        method: 'POST',
        headers: { authorization: auth },
        body: new URLSearchParams({ title: 'Jam session, moved', cost: '5' }),
      }),
    );
    assert.equal(updated.status, 200);
    assert.equal(updated.body.title, 'Jam session, moved');
    assert.equal(updated.body.rest_url, `${site}/calendar/events/v1/events/${ids[0]}`);
    const bySlug = await json(await fetch(`${api}/events/by-slug/${updated.body.slug}`));
    assert.equal(bySlug.body.cost, '$5');

    const deleted = await json(await fetch(`${api}/events/${ids[1]}`, { method: 'DELETE', headers: { authorization: auth } }));
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.status, 'trash');
    const list = await json(await fetch(`${api}/events?per_page=50`));
    assert.deepEqual(
      list.body.events.map((e: any) => e.id),
      [ids[0], ids[2]],
    );

    const anonymous = await json(await fetch(`${api}/events/${ids[2]}`, { method: 'DELETE' }));
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'rest_forbidden');
  });
});
