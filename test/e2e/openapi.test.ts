import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../src/cli/openapi.command.js';
import { type Caller, createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { makeCategory, makeEvent, makeLinked, makeTag } from '../helpers/factories.js';
import { machinery, startReceiver, testClock } from '../helpers/webhooks.js';

const Ajv = AjvModule as unknown as typeof AjvModule.default;
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Every route and method of the specification (spec §4.1). */
const SPEC_ROUTES: [string, string[]][] = [
  ['/', ['get']],
  ['/doc', ['get']],
  ['/events', ['get', 'post']],
  ['/events/{id}', ['get', 'post', 'put', 'patch', 'delete']],
  ['/events/by-slug/{slug}', ['get', 'post', 'put', 'patch', 'delete']],
  ['/venues', ['get', 'post']],
  ['/venues/{id}', ['get', 'post', 'put', 'patch', 'delete']],
  ['/venues/by-slug/{slug}', ['get', 'post', 'put', 'patch', 'delete']],
  ['/organizers', ['get', 'post']],
  ['/organizers/{id}', ['get', 'post', 'put', 'patch', 'delete']],
  ['/organizers/by-slug/{slug}', ['get', 'post', 'put', 'patch', 'delete']],
  ['/categories', ['get', 'post']],
  ['/categories/{id}', ['get', 'post', 'put', 'patch', 'delete']],
  ['/tags', ['get', 'post']],
  ['/tags/{id}', ['get', 'post', 'put', 'patch', 'delete']],
];

describe('GET /doc', () => {
  let t: TestApp;
  let doc: any;
  before(async () => {
    t = await createTestApp();
    doc = (await t.get('/doc')).body;
  });
  after(() => t.close());

  it('is an OpenAPI 3 document in the original layout', async () => {
    assert.deepEqual(Object.keys(doc), ['openapi', 'info', 'components', 'servers', 'paths']);
    assert.match(doc.openapi, /^3\.0\.\d$/);
    assert.equal(doc.info.version, '1.0.0');
    assert.deepEqual(doc.servers, [{ url: `${PUBLIC_URL}/calendar/events/v1/` }]);
    for (const name of ['Event', 'Venue', 'Organizer', 'Term', 'Image', 'ImageSize', 'DateDetails', 'CostDetails', 'Error']) {
      assert.ok(name in doc.components.schemas, name);
    }
    assert.deepEqual(Object.keys(doc.paths).slice(0, 4), ['/doc', '/events', '/events/{id}', '/events/by-slug/{slug}']);
  });

  it('validates against the OpenAPI 3 schema', async () => {
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('covers every route and method of the specification, with parameters and error responses', () => {
    for (const [path, methods] of SPEC_ROUTES) {
      assert.ok(path in doc.paths, path);
      for (const method of methods) {
        const op = doc.paths[path][method];
        assert.ok(op, `${method} ${path}`);
        assert.ok(op.responses['400'] && op.responses['401'], `${method} ${path} documents its errors`);
        if (['post', 'put', 'patch'].includes(method) && path !== '/') assert.ok(op.requestBody, `${method} ${path} body`);
      }
    }
    const list = doc.paths['/events'].get;
    const perPage = list.parameters.find((p: any) => p.name === 'per_page');
    assert.deepEqual(perPage.schema, { default: 4, type: 'integer' });
    assert.ok(perPage.description);
    const categories = list.parameters.find((p: any) => p.name === 'categories');
    assert.equal(categories.style, 'form');
    assert.equal(categories.explode, false);
    const create = doc.components.requestBodies[doc.paths['/events'].post.requestBody.$ref.split('/').pop()];
    assert.deepEqual(Object.keys(create.content), ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
    assert.deepEqual(create.content['application/json'].schema.required, ['title', 'start_date', 'end_date']);
    assert.deepEqual(doc.paths['/events/{id}'].delete.responses['410'].content['application/json'].schema, { $ref: '#/components/schemas/Error' });
  });

  it('is the committed openapi.json (run `npm run openapi` after changing a route)', () => {
    const committed = readFileSync(fileURLToPath(new URL('../../../openapi.json', import.meta.url)), 'utf8');
    assert.equal(committed, openApiDocument('http://localhost:8080'), 'openapi.json is out of date');
  });
});

describe('live responses match the documented schemas', () => {
  let t: TestApp;
  let doc: any;
  let ajv: InstanceType<typeof Ajv>;
  before(async () => {
    t = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_VERIFY: 'off' });
    doc = (await t.get('/doc')).body;
    ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('double', true);
    ajv.addSchema(doc, 'doc');
  });
  after(() => t.close());

  const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  async function check(method: string, docPath: string, url: string, options: { as?: Caller; json?: unknown } = {}) {
    const res = await t.request(method.toUpperCase(), url, options);
    const status = String(res.status);
    const responses = doc.paths[docPath][method].responses;
    assert.ok(status in responses, `${method} ${docPath} answered ${status}, which is not documented`);
    const validate = ajv.compile({ $ref: `doc#/paths/${pointer(docPath)}/${method}/responses/${status}/content/application~1json/schema` });
    assert.ok(validate(res.body), `${method} ${url} ${status}: ${JSON.stringify(validate.errors, null, 1)}`);
    return res;
  }

  it('for events, venues, organizers, terms and errors', async () => {
    const cat = await makeCategory(t, { name: 'Schema cat' });
    const parent = await makeCategory(t, { name: 'Schema parent' });
    await makeCategory(t, { name: 'Schema child', parent: parent.id });
    const tag = await makeTag(t, { name: 'schema-tag' });
    const venue = await makeLinked(t, 'venue', {
      venue: 'Schema Hall',
      city: 'Paris',
      geo_lat: 48.8,
      geo_lng: 2.3,
      website: 'https://hall.example.org',
      image: 'https://cdn.example.org/hall.png',
    });
    const org = await makeLinked(t, 'organizer', { organizer: 'Schema Org', email: 'o@x.org' });
    const event = await makeEvent(t, {
      title: 'Schema event',
      categories: [cat.id, 'Schema child'],
      tags: [tag.id],
      venue: venue.id,
      organizer: [org.id],
      cost: ['0', '15'],
      image: 'https://cdn.example.org/event.jpg',
      website: 'https://event.example.org',
    });
    await makeEvent(t, { title: 'Second schema event' });

    await check('get', '/events', '/events?per_page=1');
    await check('get', '/events/{id}', `/events/${event.id}`);
    await check('get', '/events/by-slug/{slug}', `/events/by-slug/${event.slug}`);
    await check('post', '/events', '/events', {
      as: 'editor',
      json: { title: 'Created', start_date: '2030-01-01', end_date: '2030-01-01', venue: { venue: 'New hall' } },
    });
    await check('patch', '/events/{id}', `/events/${event.id}`, { as: 'editor', json: { cost: '20' } });
    await check('get', '/venues', '/venues');
    await check('get', '/venues/{id}', `/venues/${venue.id}`);
    await check('get', '/organizers', '/organizers');
    await check('get', '/organizers/{id}', `/organizers/${org.id}`);
    await check('post', '/organizers', '/organizers', { as: 'author', json: { organizer: 'Fresh org' } });
    await check('get', '/categories', '/categories?hide_empty=0&per_page=2');
    await check('get', '/categories/{id}', `/categories/${cat.id}`);
    await check('get', '/tags', '/tags');
    await check('get', '/tags/{id}', `/tags/${tag.id}`);
    await check('post', '/tags', '/tags', { as: 'editor', json: { name: 'fresh tag' } });
    await check('get', '/doc', '/doc');
    await check('get', '/', '/calendar/events/v1');
    // errors
    await check('get', '/events', '/events?page=0');
    await check('get', '/events/{id}', '/events/999999');
    await check('post', '/events', '/events', { json: { title: 'x', start_date: '2030-01-01', end_date: '2030-01-01' } });
    await check('post', '/events', '/events', { as: 'subscriber', json: { title: 'x', start_date: '2030-01-01', end_date: '2030-01-01' } });
    await check('post', '/events', '/events', { as: 'editor', json: {} });
    const gone = await makeEvent(t);
    await t.del(`/events/${gone.id}`, { as: 'administrator' });
    await check('delete', '/events/{id}', `/events/${gone.id}`, { as: 'administrator' });
    await check('get', '/venues', '/venues?page=9');
    await check('get', '/tags/{id}', '/tags/999999', { as: 'bad' });
    await check('get', '/categories', '/categories?page=x&hide_empty=maybe');
    // sync pages, tombstones and their errors (issue 16)
    let page = await check('get', '/events', '/events?sync_token=start&per_page=1', { as: 'editor' });
    while (page.body.next_page_token)
      page = await check('get', '/events', `/events?page_token=${encodeURIComponent(page.body.next_page_token)}`, { as: 'editor' });
    await t.del(`/events/${event.id}`, { as: 'administrator' });
    const next = await check('get', '/events', `/events?sync_token=${encodeURIComponent(page.body.next_sync_token)}`, { as: 'editor' });
    assert.ok(next.body.events.some((e: any) => e.removed?.reason === 'deleted'));
    const removed = await check('get', '/events', '/events?modified_after=2000-01-01&include_removed=true');
    assert.ok(removed.body.removed.length > 0);
    await check('get', '/categories', '/categories?sync_token=start');
    await check('get', '/venues', '/venues?sync_token=forged');
    await check('get', '/tags', '/tags?sync_token=start&search=x');
    // a read's 304 is documented (no body)
    const etag = String((await t.get(`/tags/${tag.id}`)).headers.etag);
    const notModified = await t.get(`/tags/${tag.id}`, { headers: { 'if-none-match': etag } });
    assert.equal(notModified.status, 304);
    assert.ok(doc.paths['/tags/{id}'].get.responses['304']);
    assert.ok(doc.paths['/events'].get.responses['410'].description.includes('sync-token-expired'));
    // items and feeds say they carry Last-Modified; lists do not
    for (const path of ['/events/{id}', '/venues/{id}', '/categories/{id}', '/events.ics'])
      assert.ok(doc.paths[path].get.responses['200'].headers['Last-Modified'], path);
    assert.equal(doc.paths['/events'].get.responses['200'].headers['Last-Modified'], undefined);
  });

  it('for webhook endpoints, their deliveries, and the payloads POSTed to them (the callback of POST /webhooks)', async () => {
    const receiver = await startReceiver();
    try {
      const m = machinery(t, testClock(Date.now()));
      const thin = await check('post', '/webhooks', '/webhooks', {
        as: 'administrator',
        json: { url: `${receiver.url}/thin`, event_types: ['event.*'] },
      });
      await check('post', '/webhooks', '/webhooks', {
        as: 'administrator',
        json: { url: `${receiver.url}/full`, payload: 'full', event_types: ['*'] },
      });
      const event = await makeEvent(t, { title: 'Payload schema' });
      await t.post(`/events/${event.id}`, { as: 'administrator', json: { title: 'Payload schema, moved', start_date: '2031-02-03 10:00' } });
      await m.round();
      const sent = [...(await receiver.waitFor(4))];
      await check('post', '/webhooks/{id}/test', `/webhooks/${thin.body.id}/test`, { as: 'administrator' });
      const payload = ajv.compile({ $ref: 'doc#/components/schemas/WebhookPayload' });
      for (const r of receiver.received) assert.ok(payload(r.json), `${r.path} ${r.body}: ${JSON.stringify(payload.errors)}`);
      assert.deepEqual(sent.map((r) => r.json.type).sort(), ['event.created', 'event.created', 'event.updated', 'event.updated']);
      assert.ok(
        sent.some((r) => r.path === '/full' && r.json.data.object?.id === event.id),
        'a full payload carries the object',
      );
      assert.ok(receiver.received.some((r) => r.json.type === 'webhook.test'));
      const callback = doc.paths['/webhooks'].post.callbacks.delivery['{$request.body#/url}'].post;
      assert.deepEqual(
        callback.parameters.map((p: any) => p.name),
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
      );
      await check('get', '/webhooks', '/webhooks', { as: 'administrator' });
      await check('get', '/webhooks/{id}', `/webhooks/${thin.body.id}`, { as: 'administrator' });
      const deliveries = await check('get', '/webhooks/{id}/deliveries', `/webhooks/${thin.body.id}/deliveries`, { as: 'administrator' });
      const one = deliveries.body.deliveries[0].id;
      await check('get', '/webhooks/{id}/deliveries/{delivery}', `/webhooks/${thin.body.id}/deliveries/${one}`, { as: 'administrator' });
      await check('post', '/webhooks/{id}/replay', `/webhooks/${thin.body.id}/replay`, { as: 'administrator', json: { since_seq: 1 } });
      await check('post', '/webhooks/{id}/rotate-secret', `/webhooks/${thin.body.id}/rotate-secret`, { as: 'administrator' });
      await check('get', '/webhooks', '/webhooks', { as: 'editor' });
      await check('post', '/webhooks', '/webhooks', { as: 'administrator', json: { url: 'ftp://example.org/' } });
      await check('delete', '/webhooks/{id}', `/webhooks/${thin.body.id}`, { as: 'administrator' });
      await check('get', '/webhooks/{id}', `/webhooks/${thin.body.id}`, { as: 'administrator' });
    } finally {
      await receiver.close();
    }
  });
});

describe('protocol details', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('answers HEAD on GET routes with headers and no body', async () => {
    const res = await t.request('HEAD', '/events');
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
    assert.equal(res.headers['x-tec-total'], '0');
  });

  it('answers OPTIONS with Allow and the route description', async () => {
    const res = await t.request('OPTIONS', '/events/12', { as: 'administrator' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.allow, 'GET, DELETE, POST, PUT, PATCH');
    assert.deepEqual(res.body.methods, ['GET', 'DELETE', 'POST', 'PUT', 'PATCH']);
    assert.equal(res.body.namespace, 'calendar/events/v1');
    assert.equal((await t.request('OPTIONS', '/events/12')).headers.allow, 'GET', 'only what this caller may call');
    assert.equal((await t.request('OPTIONS', '/categories', { as: 'editor' })).headers.allow, 'GET, POST');
    assert.equal((await t.get('/categories', { as: 'editor' })).headers.allow, 'GET, POST', 'Allow on every response');
  });

  it('lists in Allow only the methods the caller may call on what the path names', async () => {
    const allow = async (path: string, as: Caller) => (await t.get(path, { as })).headers.allow;
    const all = 'GET, DELETE, POST, PUT, PATCH';
    assert.equal(await allow('/events', 'anonymous'), 'GET');
    assert.equal(await allow('/events', 'subscriber'), 'GET');
    assert.equal(await allow('/events', 'contributor'), 'GET, POST');
    const later = { start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00' }; // out of other tests' lists
    const admins = await makeEvent(t, { title: "Allow: the administrator's", ...later });
    const ownDraft = await makeEvent(t, { title: 'Allow: a draft', status: 'draft', ...later }, 'contributor');
    assert.equal(await allow(`/events/${admins.id}`, 'anonymous'), 'GET');
    assert.equal(await allow(`/events/${admins.id}`, 'contributor'), 'GET', "not someone else's event");
    assert.equal(await allow(`/events/${admins.id}`, 'editor'), all);
    assert.equal(await allow(`/events/${ownDraft.id}`, 'contributor'), all, 'their own draft');
    assert.equal(await allow(`/events/by-slug/${admins.slug}`, 'contributor'), 'GET');
    assert.equal(await allow(`/events/by-slug/${admins.slug}`, 'administrator'), all);
    const venue = await makeLinked(t, 'venue');
    assert.equal(await allow(`/venues/${venue.id}`, 'anonymous'), 'GET');
    assert.equal(await allow(`/venues/${venue.id}`, 'author'), 'GET', "an author may not edit someone else's venue");
    assert.equal(await allow(`/venues/${venue.id}`, 'administrator'), all);
    assert.equal(await allow('/venues', 'author'), 'GET, POST');
    const category = await makeCategory(t);
    const tag = await makeTag(t);
    assert.equal(await allow(`/categories/${category.id}`, 'author'), 'GET, POST, PUT, PATCH, DELETE');
    assert.equal(await allow(`/categories/${category.id}`, 'contributor'), 'GET');
    assert.equal(await allow(`/tags/${tag.id}`, 'author'), 'GET');
    assert.equal(await allow(`/tags/${tag.id}`, 'editor'), 'GET, POST, PUT, PATCH, DELETE');
    assert.equal(await allow('/tags', 'editor'), 'GET, POST');
  });

  it('selects fields with _fields, nested ones with a dot', async () => {
    const e = await makeEvent(t, { title: 'Fields' });
    const single = await t.get(`/events/${e.id}`, { query: { _fields: 'id,title' } });
    assert.deepEqual(single.body, { id: e.id, title: 'Fields' });
    const list = await t.get('/events', { query: { _fields: 'total,events.id' } });
    assert.deepEqual(Object.keys(list.body), ['events', 'total']);
    assert.deepEqual(list.body.events, [{ id: e.id }]);
  });

  it('reads _fields names as names only: __proto__ and constructor reach no prototype, and a parent named whole ends its dotted names', async () => {
    const e = await makeEvent(t, { title: 'Prototype names' });
    for (const fields of ['__proto__.polluted', 'constructor.prototype.polluted', 'constructor.name', '__proto__,__proto__.polluted']) {
      const res = await t.get(`/events/${e.id}`, { query: { _fields: fields } });
      assert.equal(res.status, 200, `${fields}: ${res.text.slice(0, 200)}`);
      assert.deepEqual(res.body, {}, fields);
      assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false, `${fields} reached Object.prototype`);
    }
    // (`title.id` after `title`: the whole title is kept, and no top-level `id` comes with it, as in WordPress)
    assert.deepEqual((await t.get(`/events/${e.id}`, { query: { _fields: 'title,title.id' } })).body, { title: 'Prototype names' });
    assert.equal((await t.get(`/events/${e.id}`)).body.id, e.id);
  });

  it('overrides POST with _method or X-HTTP-Method-Override', async () => {
    const e = await makeEvent(t, { title: 'Override me' });
    const viaQuery = await t.post(`/events/${e.id}`, { as: 'administrator', query: { _method: 'DELETE' } });
    assert.equal(viaQuery.status, 200);
    assert.equal(viaQuery.body.status, 'trash');
    const c = await makeCategory(t, { name: 'Override cat' });
    const viaHeader = await t.post(`/categories/${c.id}`, { as: 'administrator', headers: { 'x-http-method-override': 'DELETE' } });
    assert.equal(viaHeader.status, 200);
    assert.equal((await t.get(`/categories/${c.id}`)).status, 400);
    const unknown = await t.post('/events', { as: 'administrator', query: { _method: 'DELETE' } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'rest_no_route');
  });

  it('reads _method before X-HTTP-Method-Override when a POST sends both, as WordPress does', async () => {
    const e = await makeEvent(t, { title: 'Both overrides' });
    const res = await t.post(`/events/${e.id}`, {
      as: 'administrator',
      query: { _method: 'DELETE' },
      headers: { 'x-http-method-override': 'PUT' },
      json: { title: 'Not an update' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'trash', 'the DELETE of _method, not the PUT of the header');
    assert.equal(res.body.title, 'Both overrides');
    // without `_method`, the header still counts
    const c = await makeCategory(t, { name: 'Header only' });
    const put = await t.post(`/categories/${c.id}`, {
      as: 'administrator',
      headers: { 'x-http-method-override': 'PUT' },
      form: { description: 'by PUT' },
    });
    assert.equal(put.status, 200);
    assert.equal(put.body.description, 'by PUT');
  });

  it('filters the OPTIONS description by _fields, as every other answer', async () => {
    const res = await t.request('OPTIONS', '/categories', { query: { _fields: 'namespace,methods' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { namespace: 'calendar/events/v1', methods: ['GET', 'POST'] });
    assert.equal(res.headers.allow, 'GET');
    const root = await t.app.inject({ method: 'OPTIONS', url: '/wp-json/?_fields=methods' });
    assert.equal(root.statusCode, 200);
    assert.deepEqual(JSON.parse(root.body), { methods: ['GET'] });
  });

  it('wraps answers in an envelope with ?_envelope, and in a JSONP callback with ?_jsonp', async () => {
    const plain = await t.get('/categories', { query: { hide_empty: 0 } });
    const wrapped = await t.get('/categories', { query: { hide_empty: 0, _envelope: '' } });
    assert.equal(wrapped.status, 200);
    assert.deepEqual(Object.keys(wrapped.body), ['body', 'status', 'headers']);
    assert.deepEqual(wrapped.body.body, plain.body);
    assert.equal(wrapped.body.status, 200);
    assert.equal(wrapped.body.headers['X-TEC-Total'], plain.headers['x-tec-total']);
    assert.equal(wrapped.body.headers.Allow, 'GET');
    const missing = await t.get('/categories/999999', { query: { _envelope: '1' } });
    assert.equal(missing.status, 200, 'the status travels inside');
    assert.equal(missing.body.status, 400);
    assert.equal(missing.body.body.code, 'rest_invalid_param');

    const jsonp = await t.get('/categories', { query: { hide_empty: 0, _jsonp: 'my.callback_1' } });
    assert.equal(jsonp.status, 200);
    assert.equal(jsonp.headers['content-type'], 'application/javascript; charset=UTF-8');
    assert.equal(jsonp.text, `/**/my.callback_1(${plain.text})`);
    const both = await t.get('/categories/999999', { query: { _jsonp: 'cb', _envelope: '' } });
    assert.match(both.text, /^\/\*\*\/cb\(\{"body":\{"code":"rest_invalid_param"/);
    for (const bad of ['alert(1)', 'a-b', 'x;y']) {
      const refused = await t.get('/categories', { query: { _jsonp: bad } });
      assert.equal(refused.status, 400, bad);
      assert.equal(refused.body.code, 'rest_callback_invalid');
      assert.equal(refused.headers['content-type'], 'application/json; charset=UTF-8');
    }
  });

  it('sends the standard headers', async () => {
    const res = await t.get('/tags');
    assert.equal(res.headers['content-type'], 'application/json; charset=UTF-8');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    // WordPress' discovery link names its root index, which lists the original's namespace (as recorded)
    assert.equal(res.headers.link, `<${PUBLIC_URL}/wp-json/>; rel="https://api.w.org/"`);
    const index = await t.app.inject({ method: 'GET', url: '/wp-json/' });
    assert.equal(index.statusCode, 200);
    assert.ok(JSON.parse(index.body).namespaces.includes('tribe/events/v1'));
    assert.equal(res.headers['x-robots-tag'], 'noindex');
    assert.equal(res.headers['cache-control'], 'public, max-age=0, must-revalidate', 'anonymous answers may be kept, and revalidated (ETag)');
    assert.equal((await t.get('/nowhere')).headers['x-robots-tag'], 'noindex', 'errors too');
    for (const as of ['subscriber', 'administrator'] as const) {
      const logged = await t.get('/tags', { as });
      assert.equal(logged.headers['cache-control'], 'no-cache, must-revalidate, max-age=0, no-store, private', `${as}: no-cache`);
      assert.equal(logged.headers.expires, 'Wed, 11 Jan 1984 05:00:00 GMT');
    }
  });

  it('answers every origin by default, as WordPress; listed origins only, or none, when CORS_ORIGINS says so', async () => {
    const res = await t.get('/events', { headers: { origin: 'https://app.example.org' } });
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.match(String(res.headers['access-control-expose-headers']), /^X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages/);
    assert.match(String(res.headers['access-control-allow-headers']), /^Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type/);
    const off = await createTestApp({ CORS_ORIGINS: 'none' });
    try {
      assert.equal((await off.get('/events', { headers: { origin: 'https://app.example.org' } })).headers['access-control-allow-origin'], undefined);
    } finally {
      await off.close();
    }
    const cors = await createTestApp({ CORS_ORIGINS: 'https://app.example.org, https://other.example.org' });
    try {
      const ok = await cors.get('/events', { headers: { origin: 'https://app.example.org' } });
      assert.equal(ok.headers['access-control-allow-origin'], 'https://app.example.org');
      assert.match(String(ok.headers['access-control-expose-headers']), /^X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages/);
      assert.match(String(ok.headers.vary), /(^|, )Origin(,|$)/);
      const preflight = await cors.request('OPTIONS', '/events', {
        headers: { origin: 'https://other.example.org', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      });
      assert.equal(preflight.status, 204);
      assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
      assert.match(
        String(preflight.headers['access-control-allow-headers']),
        /^Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type/,
      );
      const denied = await cors.get('/events', { headers: { origin: 'https://evil.example.org' } });
      assert.equal(denied.headers['access-control-allow-origin'], undefined);
    } finally {
      await cors.close();
    }
    const any = await createTestApp({ CORS_ORIGINS: '*' });
    try {
      assert.equal((await any.get('/tags', { headers: { origin: 'https://x.example' } })).headers['access-control-allow-origin'], '*');
    } finally {
      await any.close();
    }
  });
});
