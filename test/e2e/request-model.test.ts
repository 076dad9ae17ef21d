import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { makeLinked } from '../helpers/factories.js';

const NS = `${PUBLIC_URL}/calendar/events/v1`;

function assertErrorShape(body: any, code: string, status: number) {
  assert.equal(body.code, code);
  assert.equal(typeof body.message, 'string');
  assert.ok(body.message.length > 0);
  assert.equal(body.data.status, status);
}

describe('request model', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ BODY_LIMIT: '2048' })));
  after(() => t.close());

  it('answers unknown paths and methods with 404 rest_no_route', async () => {
    for (const [method, path] of [
      ['GET', '/nothing-here'],
      ['GET', '/calendar/events/v1/nothing'],
      ['PUT', '/categories'],
      ['DELETE', '/tags'],
      ['GET', '/categories/foo'],
      ['GET', '/categories/1.5'],
      ['POST', '/categories/-1'],
    ] as const) {
      const res = await t.request(method, path, { as: 'administrator' });
      assert.equal(res.status, 404, `${method} ${path}`);
      assertErrorShape(res.body, 'rest_no_route', 404);
    }
  });

  it('accepts a trailing slash on every route', async () => {
    assert.equal((await t.get('/categories/')).status, 200);
    assert.equal((await t.get('/calendar/events/v1/')).status, 200);
  });

  it('serves HEAD on GET routes with the headers and no body', async () => {
    const res = await t.request('HEAD', '/categories');
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
    assert.equal(res.headers['x-tec-total'], '0');
    assert.match(String(res.headers['content-type']), /^application\/json; charset=UTF-8$/);
  });

  it('sends standard headers', async () => {
    const res = await t.get('/tags');
    assert.equal(res.headers['content-type'], 'application/json; charset=UTF-8');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.ok(res.headers['x-request-id']);
  });

  it('answers malformed JSON with rest_invalid_json', async () => {
    for (const body of ['{bad', '[1,2]', '"text"', '{"a":']) {
      const res = await t.post('/categories', { as: 'administrator', raw: { type: 'application/json', body } });
      assert.equal(res.status, 400, body);
      assertErrorShape(res.body, 'rest_invalid_json', 400);
    }
  });

  it('answers a JSON body that is not UTF-8 with rest_invalid_json, whatever charset it names, and stores nothing', async () => {
    const before = (await t.get('/categories', { query: { hide_empty: 0, per_page: 100 } })).body.categories.length;
    for (const [type, body] of [
      ['application/json', Buffer.from([...Buffer.from('{"name":"bad'), 0xff, 0xfe, ...Buffer.from('"}')])],
      ['application/json; charset=latin1', Buffer.from([...Buffer.from('{"name":"caf'), 0xe9, ...Buffer.from('"}')])],
    ] as const) {
      const res = await t.post('/categories', { as: 'administrator', raw: { type, body: body as unknown as string } });
      assert.equal(res.status, 400, type);
      assertErrorShape(res.body, 'rest_invalid_json', 400);
      // PHP's JSON_ERROR_UTF8, as the original's json_decode reports it
      assert.equal(res.body.data.json_error_code, 5, type);
      assert.equal(res.body.data.json_error_message, 'Malformed UTF-8 characters, possibly incorrectly encoded');
    }
    assert.equal((await t.get('/categories', { query: { hide_empty: 0, per_page: 100 } })).body.categories.length, before);
  });

  it("answers JSON nested deeper than PHP's 512 levels as the original's json_decode does (depth, not syntax), and stores nothing", async () => {
    const before = (await t.get('/categories', { query: { hide_empty: 0, per_page: 100 } })).body.categories.length;
    const nested = (levels: number) => `{"name":"Deep","description":${'['.repeat(levels - 1)}"x"${']'.repeat(levels - 1)}}`;
    for (const levels of [513, 1000]) {
      const res = await t.post('/categories', { as: 'administrator', raw: { type: 'application/json', body: nested(levels) } });
      assert.equal(res.status, 400, String(levels));
      assert.deepEqual(res.body, {
        code: 'rest_invalid_json',
        message: 'Invalid JSON body passed.',
        data: { status: 400, json_error_code: 1, json_error_message: 'Maximum stack depth exceeded' },
      });
    }
    // brackets inside strings are text, and 512 levels are read (the description is then not a string: that argument's 400)
    const inText = await t.post('/categories', {
      as: 'administrator',
      raw: { type: 'application/json', body: `{"name":"Brackets in text","description":"\\"${'['.repeat(600)}"}` },
    });
    assert.equal(inText.status, 201, inText.text);
    const deepest = await t.post('/categories', { as: 'administrator', raw: { type: 'application/json', body: nested(512) } });
    assert.equal(deepest.status, 400);
    assert.deepEqual(deepest.body.data.params, { description: 'description is not of type string.' });
    assert.equal((await t.get('/categories', { query: { hide_empty: 0, per_page: 100 } })).body.categories.length, before + 1);
  });

  it('answers a form body that is not UTF-8 (raw bytes or percent-escapes) with rest_invalid_param naming the parameter, and stores nothing', async () => {
    const before = (await t.get('/categories', { query: { hide_empty: 0, per_page: 100 } })).body.categories.length;
    for (const [body, param] of [
      ['name=bad%FF%FE', 'name'],
      [Buffer.from([...Buffer.from('description=ok&name=caf'), 0xe9]), 'name'],
      ['name=Fine&description=%ED%A0%80', 'description'],
      ['name=Fine&parent%5Bx%5D=%C3', 'parent'],
    ] as const) {
      const res = await t.post('/categories', {
        as: 'administrator',
        raw: { type: 'application/x-www-form-urlencoded', body: body as unknown as string },
      });
      assert.equal(res.status, 400, String(body));
      assertErrorShape(res.body, 'rest_invalid_param', 400);
      assert.deepEqual(Object.keys(res.body.data.params), [param], String(body));
    }
    assert.equal((await t.get('/categories', { query: { hide_empty: 0, per_page: 100 } })).body.categories.length, before);
    // UTF-8 escapes and a stray % are read as before
    const fine = await t.post('/categories', {
      as: 'administrator',
      raw: { type: 'application/x-www-form-urlencoded', body: 'name=Caf%C3%A9+100%' },
    });
    assert.equal(fine.status, 201, fine.text);
    assert.equal(fine.body.name, 'Café 100%');
    // and so in a query string
    const found = await t.app.inject({ method: 'GET', url: '/calendar/events/v1/categories?hide_empty=0&search=Caf%C3%A9+100%' });
    assert.deepEqual(
      found.json().categories.map((c: { name: string }) => c.name),
      ['Café 100%'],
    );
  });

  it('refuses a lone surrogate in any text, nested ones too, naming the parameter, and stores nothing', async () => {
    const count = async () =>
      Number((await t.get('/events', { as: 'administrator', query: { start_date: '2031-03-01', end_date: '2031-03-02' } })).body.total ?? 0);
    const before = await count();
    for (const [json, param] of [
      [{ title: 'T\ud800', start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00' }, 'title'],
      [{ title: 'Fine', slug: 'x\udc00y', start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00' }, 'slug'],
      [{ title: 'Fine', categories: ['New \ud83d'], start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00' }, 'categories'],
      [{ title: 'Fine', venue: { venue: 'Hall \ud800' }, start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00' }, 'venue'],
    ] as const) {
      const res = await t.post('/events', { as: 'administrator', json });
      assert.equal(res.status, 400, param);
      assert.equal(res.body.code, 'rest_invalid_param', param);
      assert.ok(res.body.data.params[param], `${param}: ${res.text}`);
    }
    assert.equal(await count(), before);
    // a pair is a character: accepted
    const emoji = await t.post('/events', {
      as: 'administrator',
      json: { title: 'Party \ud83c\udf89', start_date: '2031-03-01 10:00', end_date: '2031-03-01 11:00' },
    });
    assert.equal(emoji.status, 201, emoji.text);
    assert.equal(emoji.body.title, 'Party 🎉');
  });

  it('refuses an event date before year 0 (a timestamp far in the past) naming it, on every database', async () => {
    const res = await t.post('/events', { as: 'administrator', json: { title: 'x', start_date: '@-99999999999', end_date: '2030-01-01' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_invalid_param');
    assert.ok(res.body.data.params.start_date);
  });

  it('refuses an event whose wall time is a year 10000 (or -1) instant in UTC, naming the date, and stores nothing', async () => {
    for (const [json, param] of [
      [{ start_date: '9999-12-31 22:00:00', end_date: '9999-12-31 23:00:00', timezone: 'America/New_York' }, 'start_date'],
      [{ start_date: '9999-12-31 12:00:00', end_date: '9999-12-31 23:00:00', timezone: 'America/New_York' }, 'end_date'],
      [{ start_date: '0000-01-01 00:30:00', end_date: '0000-01-01 05:00:00', timezone: 'Asia/Tokyo' }, 'start_date'],
    ] as const) {
      const res = await t.post('/events', { as: 'administrator', json: { title: 'Edge of time', ...json } });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(res.body.data.params), [param], JSON.stringify(json));
    }
    const found = await t.get('/events', {
      as: 'administrator',
      query: { search: 'Edge of time', start_date: '0000-01-01', end_date: '9999-12-31' },
    });
    assert.equal(found.body.total ?? found.body.events?.length ?? 0, 0);
    // the last hour UTC can hold, in New York: fine
    const fine = await t.post('/events', {
      as: 'administrator',
      json: { title: 'Last hour', start_date: '9999-12-31 17:00:00', end_date: '9999-12-31 18:00:00', timezone: 'America/New_York' },
    });
    assert.equal(fine.status, 201, fine.text);
    assert.equal(fine.body.utc_start_date, '9999-12-31 22:00:00');
  });

  it('answers a path parameter over 1,000 characters with a 400 that does not repeat the URL', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/calendar/events/v1/events/by-slug/${'a'.repeat(5000)}` });
    assert.equal(res.statusCode, 400);
    assertErrorShape(res.json(), 'rest_bad_request', 400);
    assert.ok(res.body.length < 300, res.body.slice(0, 300));
  });

  it('treats an empty JSON body as no parameters', async () => {
    const res = await t.post('/categories', { as: 'administrator', raw: { type: 'application/json', body: '' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'rest_missing_callback_param');
  });

  it('answers a body over BODY_LIMIT with 413 rest_payload_too_large', async () => {
    const res = await t.post('/categories', { as: 'administrator', form: { name: 'x'.repeat(5000) } });
    assert.equal(res.status, 413);
    assertErrorShape(res.body, 'rest_payload_too_large', 413);
  });

  it('answers unsupported content types with 415 rest_unsupported_media_type', async () => {
    const res = await t.post('/categories', { as: 'administrator', raw: { type: 'text/plain', body: 'name=x' } });
    assert.equal(res.status, 415);
    assertErrorShape(res.body, 'rest_unsupported_media_type', 415);
    assert.match(res.body.message, /"text\/plain"/, 'names the type sent');
  });

  it('reads JSON and form bodies whatever parameters their media type carries', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON']) {
      const res = await t.post('/categories', { as: 'administrator', raw: { type, body: JSON.stringify({ name: `Typed ${type}` }) } });
      assert.equal(res.status, 201, `${type}: ${res.text}`);
      assert.equal(res.body.name, `Typed ${type}`);
    }
    const form = await t.post('/categories', {
      as: 'administrator',
      raw: { type: 'application/x-www-form-urlencoded; charset=UTF-8', body: 'name=Formed' },
    });
    assert.equal(form.status, 201);
  });

  it('reads a multipart/form-data body (curl -F, a browser FormData) as the form body: nested and repeated names, raw bytes whatever charset a part names, file parts dropped', async () => {
    const fd = new FormData();
    fd.append('title', 'Multipart café');
    fd.append('start_date', '2031-04-02 19:00:00');
    fd.append('end_date', '2031-04-02 21:00:00');
    fd.append('venue[venue]', 'Multipart hall');
    fd.append('venue[city]', 'Lyon');
    fd.append('tags[]', 'mp-one');
    fd.append('tags[]', 'mp-two');
    // a file part is $_FILES to PHP, never a parameter
    fd.append('description', new Blob(['from a file']), 'notes.txt');
    const sent = new Request('http://localhost/', { method: 'POST', body: fd });
    const body = Buffer.from(await sent.arrayBuffer());
    const created = await t.post('/events', {
      as: 'administrator',
      raw: { type: sent.headers.get('content-type')!, body: body as unknown as string },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.title, 'Multipart café');
    assert.equal(created.body.start_date, '2031-04-02 19:00:00');
    assert.equal(created.body.venue.venue, 'Multipart hall');
    assert.equal(created.body.venue.city, 'Lyon');
    assert.deepEqual(
      created.body.tags.map((tag: { name: string }) => tag.name),
      ['mp-one', 'mp-two'],
    );
    assert.equal(created.body.description, '');
    // a part that names another charset still gives its bytes, as PHP reads them (here UTF-8)
    const labelled = Buffer.concat([
      Buffer.from('--b1\r\nContent-Disposition: form-data; name="name"\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\r\n'),
      Buffer.from('Étiquette', 'utf8'),
      Buffer.from('\r\n--b1--\r\n'),
    ]);
    const tag = await t.post('/tags', {
      as: 'administrator',
      raw: { type: 'multipart/form-data; boundary=b1', body: labelled as unknown as string },
    });
    assert.equal(tag.status, 201, tag.text);
    assert.equal(tag.body.name, 'Étiquette');
  });

  it('answers a multipart body it cannot read, or a field that is not UTF-8, with 400 naming body or the field, and stores nothing', async () => {
    const before = (await t.get('/tags', { query: { hide_empty: 0, per_page: 100 } })).body.tags.length;
    const notUtf8 = Buffer.concat([
      Buffer.from('--b2\r\nContent-Disposition: form-data; name="name"\r\n\r\n'),
      Buffer.from([0x4f, 0xff, 0x4b]),
      Buffer.from('\r\n--b2--\r\n'),
    ]);
    for (const [type, body, param] of [
      ['multipart/form-data', Buffer.from('name=x'), 'body'],
      ['multipart/form-data; boundary=b2', Buffer.from('--b2\r\nContent-Disposition: form-data; name="name"\r\n\r\ncut off'), 'body'],
      ['multipart/form-data; boundary=b2', notUtf8, 'name'],
    ] as const) {
      const res = await t.post('/tags', { as: 'administrator', raw: { type, body: body as unknown as string } });
      assert.equal(res.status, 400, `${type}: ${res.text}`);
      assertErrorShape(res.body, 'rest_invalid_param', 400);
      assert.deepEqual(Object.keys(res.body.data.params), [param], type);
    }
    assert.equal((await t.get('/tags', { query: { hide_empty: 0, per_page: 100 } })).body.tags.length, before);
  });

  it('matches the route before reading the body: no route is a 404 whatever the body', async () => {
    for (const raw of [
      { type: 'application/json', body: '{bad' },
      { type: 'text/plain', body: 'x' },
    ]) {
      const res = await t.post('/nowhere', { as: 'administrator', raw });
      assert.equal(res.status, 404, raw.type);
      assertErrorShape(res.body, 'rest_no_route', 404);
    }
  });

  it('coerces WordPress-style parameters: booleans, integer strings, CSV or array lists', async () => {
    for (const v of ['true', 'TRUE', '1', 'false', '0', 'False']) {
      assert.equal((await t.get('/categories', { query: { hide_empty: v } })).status, 200, v);
    }
    for (const v of ['yes', '2', '', 'on']) {
      const res = await t.get('/categories', { query: { hide_empty: v } });
      assert.equal(res.status, 400, v);
      assert.match(res.body.data.params.hide_empty, /not of type boolean/);
    }
    assert.equal((await t.get('/categories', { query: { page: ' 2 ' } })).status, 200);
    assert.equal((await t.get('/categories', { query: { page: '2.0' } })).status, 200);
    assert.equal((await t.get('/categories', { query: { per_page: '1e1' } })).status, 200, 'PHP reads exponents');
    const far = await t.get('/venues', { query: { page: '99999999999999999999' } });
    assert.equal(far.status, 404, 'a huge page is a page past the end, not a type error');
    assert.equal(far.body.code, 'venue-archive-page-not-found');
    assert.equal((await t.get('/events', { query: { page: '1e18' } })).status, 404);
    assert.equal((await t.get('/categories', { query: { page: '1e18' } })).status, 200);
    assert.equal((await t.get('/categories', { query: 'per_page=2&per_page=3' })).status, 200, 'the last duplicate wins');
  });

  it('reads a JSON null page or per_page as its default, on every list (the fuzzer found a 500 and an uncapped page)', async () => {
    for (let i = 0; i < 6; i++) await makeLinked(t, 'venue', { venue: `Null page venue ${i}` });
    for (const list of ['/events', '/venues', '/organizers', '/categories', '/tags']) {
      for (const body of [{ per_page: null }, { page: null }, { page: null, per_page: null }]) {
        const res = await t.post(list, { query: { _method: 'GET' }, json: body });
        assert.equal(res.status, 200, `${list} ${JSON.stringify(body)}: ${res.text.slice(0, 200)}`);
        assert.equal(res.headers['x-tec-totalpages'], String(Math.ceil(Number(res.headers['x-tec-total']) / 4)), `${list}: 4 a page`);
        const key = list.slice(1);
        assert.ok(res.body[key].length <= 4, `${list}: at most 4 items`);
      }
    }
  });

  it('collects every invalid parameter into one error', async () => {
    const res = await t.get('/categories', { query: { page: 'x', per_page: '0', order: '' } });
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body.data.params).sort(), ['order', 'page', 'per_page']);
    assert.match(res.body.message, /page/);
  });

  it("lists in data.details only the failures WordPress' validators give as errors, else []", async () => {
    // a validator answering false (an unknown id, an anonymous caller's status): params only, details an empty array
    for (const [path, query] of [
      ['/categories/999999', {}],
      ['/events', { status: 'draft' }],
    ] as const) {
      const res = await t.get(path, { query });
      assert.equal(res.status, 400, path);
      assert.equal(res.body.code, 'rest_invalid_param');
      assert.deepEqual(res.body.data.details, [], path);
      assert.equal(res.text.includes('"details":[]'), true);
    }
    // a schema check (WordPress' rest_validate_value_from_schema) returns a WP_Error: it is detailed with its code
    const typed = await t.get('/categories', { query: { page: 'x', hide_empty: 'maybe' } });
    assert.equal(typed.status, 400);
    assert.deepEqual(Object.keys(typed.body.data.details).sort(), Object.keys(typed.body.data.params).sort());
    for (const [name, detail] of Object.entries(typed.body.data.details) as [string, any][]) {
      assert.equal(detail.message, typed.body.data.params[name]);
      assert.equal(detail.code, 'rest_invalid_type');
      // (WordPress gives a wrong type's error the parameter as its data)
      assert.deepEqual(detail.data, { param: name });
    }
    // a bound's error has no data
    const bounded = await t.get('/events.ics', { query: { limit: '0' } });
    assert.equal(bounded.status, 400);
    assert.equal(bounded.body.data.details.limit.code, 'rest_out_of_bounds');
    assert.equal(bounded.body.data.details.limit.data, null);
  });

  it('sends Allow on the errors of a matched route, as on its answers, and not on rest_no_route', async () => {
    const created = await t.post('/categories', { as: 'administrator', form: { name: 'Allowed' } });
    for (const [path, as, allow] of [
      ['/categories/999999', undefined, 'GET'],
      ['/events/999999', undefined, 'GET'],
      ['/events?page=99', undefined, 'GET'],
      ['/events?status=bogus', 'administrator', 'GET, POST'],
      ['/events/999999', 'administrator', 'GET, DELETE, POST, PUT, PATCH'],
    ] as const) {
      const res = await t.get(path, as ? { as } : {});
      assert.ok(res.status >= 400, `${path}: ${res.status}`);
      assert.equal(res.headers.allow, allow, path);
    }
    // the same route's answer carries the same header
    assert.equal((await t.get(`/categories/${created.body.id}`)).headers.allow, 'GET');
    assert.equal((await t.get('/nothing-here')).headers.allow, undefined);
  });

  it('reads an id beyond any row there can be as one no row has, on either database (not a storage error)', async () => {
    const big = '99999999999';
    const cases: [string, string, number, string, Parameters<TestApp['get']>[1]?][] = [
      ['GET', `/events/${big}`, 404, 'rest-event-not-found'],
      ['GET', `/events/${big}`, 404, 'rest-event-not-found', { as: 'administrator' }],
      ['DELETE', `/events/${big}`, 404, 'rest-event-not-found', { as: 'administrator' }],
      ['GET', `/categories/${big}`, 400, 'rest_invalid_param'],
      ['GET', `/venues/${big}`, 400, 'rest_invalid_param'],
      ['GET', `/organizers/${big}`, 400, 'rest_invalid_param'],
      ['GET', `/events?venue=${big}`, 400, 'rest_invalid_param'],
      ['GET', `/webhooks/${big}`, 404, 'webhook-not-found', { as: 'administrator' }],
    ];
    for (const [method, path, status, code, options] of cases) {
      const res = await t.request(method, path, options ?? {});
      assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.code, code, `${method} ${path}`);
    }
  });

  it("reads a GET's JSON body before its query string, as WordPress does, answers a bad one 400, and shares no cached answer with it", async () => {
    for (const name of ['Get body A', 'Get body B', 'Get body C']) await t.post('/categories', { as: 'administrator', form: { name } });
    const count = (res: { status: number; body: any }) => {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.categories.length;
    };
    assert.equal(count(await t.get('/categories', { query: { per_page: 3, hide_empty: 'false' } })), 3);
    assert.equal(
      count(await t.request('GET', '/categories', { query: { per_page: 3, hide_empty: 'false' }, json: { per_page: 1 } })),
      1,
      'the body wins',
    );
    assert.equal(count(await t.get('/categories', { query: { per_page: 3, hide_empty: 'false' } })), 3, 'the URL alone still answers for itself');
    // a URL first asked with a body: its answer is not kept for the URL
    assert.equal(count(await t.request('GET', '/categories', { query: { per_page: 2, hide_empty: 'false' }, json: { per_page: 1 } })), 1);
    assert.equal(count(await t.get('/categories', { query: { per_page: 2, hide_empty: 'false' } })), 2);
    // HEAD reads it too (its X-WP-TotalPages counts pages of one)
    const head = await t.request('HEAD', '/categories', { query: { hide_empty: 'false' }, json: { per_page: 1 } });
    assert.equal(head.status, 200);
    assert.equal(head.headers['x-wp-totalpages'], head.headers['x-wp-total']);
    // a body that is not JSON is not read on a GET, as WordPress reads no form body there
    assert.equal(count(await t.request('GET', '/categories', { query: { per_page: 2, hide_empty: 'false' }, form: { per_page: '1' } })), 2);
    const bad = await t.request('GET', '/categories', { raw: { type: 'application/json', body: '{"per_page":' } });
    assert.equal(bad.status, 400);
    assertErrorShape(bad.body, 'rest_invalid_json', 400);
    const invalid = await t.request('GET', '/categories', { json: { per_page: 'many' } });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.code, 'rest_invalid_param');
    assert.deepEqual(Object.keys(invalid.body.data.params), ['per_page']);
    const large = await t.request('GET', '/categories', { json: { search: 'x'.repeat(5000) } });
    assert.equal(large.status, 413);
    assertErrorShape(large.body, 'rest_payload_too_large', 413);
  });

  it('ignores a body id that would shadow the path id', async () => {
    const created = await t.post('/categories', { as: 'administrator', form: { name: 'Shadowed' } });
    const other = await t.post('/categories', { as: 'administrator', form: { name: 'Other' } });
    const res = await t.put(`/categories/${created.body.id}`, {
      as: 'administrator',
      form: { id: String(other.body.id), description: 'changed' },
    });
    assert.equal(res.body.id, created.body.id);
    assert.equal((await t.get(`/categories/${other.body.id}`)).body.description, '');
  });

  it('reports health', async () => {
    const res = await t.get('/healthz');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
  });
});

describe('authentication', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const basic = (login: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` });

  it('accepts an application password with or without its grouping spaces', async () => {
    const u = t.users.editor;
    for (const password of [u.password, u.password.replace(/ /g, '')]) {
      const res = await t.post('/tags', { headers: basic(u.login, password), form: { name: `T ${password.length}` } });
      assert.equal(res.status, 201);
    }
  });

  it("finds the user as WordPress does: by the login in any case, or by the account's e-mail address", async () => {
    const u = t.users.editor;
    for (const login of [u.login.toUpperCase(), `${u.login}@calendar.test`, `${u.login.toUpperCase()}@Calendar.Test`]) {
      const res = await t.get('/events', { headers: basic(login, u.password), query: { status: 'draft' } });
      assert.equal(res.status, 200, login);
    }
    // the e-mail with a wrong password, and another user's e-mail with this password, are refused
    for (const [login, password] of [
      [`${u.login}@calendar.test`, 'wrong password here'],
      [`${t.users.author.login}@calendar.test`, u.password],
    ]) {
      const res = await t.get('/tags', { headers: basic(login, password) });
      assert.equal(res.status, 401, login);
      assertErrorShape(res.body, 'incorrect_password', 401);
    }
  });

  it('answers 401 incorrect_password for a wrong password and for an unknown login alike', async () => {
    // (`Basic` alone is the Basic scheme with no credentials: wrong ones, not another scheme)
    for (const headers of [
      basic('editor', 'nope'),
      basic('nobody', 'nope'),
      basic('', ''),
      { authorization: 'Basic !!!' },
      { authorization: 'Basic' },
    ]) {
      const res = await t.get('/tags', { headers });
      assert.equal(res.status, 401);
      assertErrorShape(res.body, 'incorrect_password', 401);
    }
  });

  it('checks a chosen (scrypt) password off the event loop: wrong tries do not hold it, the right one still works', async () => {
    const chosen = 'a chosen pass phrase';
    await t.app.services.users.add({ login: 'chooser', role: 'editor', password: chosen });
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    let shortest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const res = await t.get('/tags', { headers: basic('chooser', `wrong ${i}`) });
      shortest = Math.min(shortest, performance.now() - started);
      assert.equal(res.status, 401);
    }
    delay.disable();
    // scrypt (N=16384, r=8) is most of a wrong try's time (~50 ms here): run on the event loop, it held the loop
    // about as long as the try took (43 ms of 45 measured so); on the thread pool, the loop is free meanwhile
    const held = delay.max / 1e6;
    assert.ok(held < shortest / 2, `the event loop was held ${held.toFixed(1)} ms of a ${shortest.toFixed(1)} ms try`);
    assert.equal((await t.get('/tags', { headers: basic('chooser', chosen) })).status, 200);
  });

  it('refuses other authorization schemes with 401 instead of falling back to anonymous', async () => {
    const res = await t.get('/tags', { headers: { authorization: 'Bearer abc' } });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'rest_unsupported_authorization');
  });

  it('checks credentials even on unknown routes', async () => {
    assert.equal((await t.get('/nowhere', { as: 'bad' })).status, 401);
  });

  it('stops accepting revoked passwords at once, and accepts a new one', async () => {
    const created = await t.app.services.users.add({ login: 'temp', role: 'editor' });
    assert.equal((await t.post('/tags', { headers: basic('temp', created.password), form: { name: 'by temp' } })).status, 201);
    await t.app.services.users.revoke('temp');
    assert.equal((await t.get('/tags', { headers: basic('temp', created.password) })).status, 401);
    const again = await t.app.services.users.addAppPassword('temp', 'chosen-password-1');
    assert.equal(again.generated, false);
    assert.equal((await t.get('/tags', { headers: basic('temp', 'chosen-password-1') })).status, 200);
    assert.equal((await t.get('/tags', { headers: basic('temp', 'chosen-password-1') })).status, 200, 'cached check');
    await t.app.services.users.remove('temp');
    assert.equal((await t.get('/tags', { headers: basic('temp', 'chosen-password-1') })).status, 401);
  });
});

describe('namespace index', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('lists every registered route with its methods and arguments', async () => {
    const res = await t.get('/calendar/events/v1');
    assert.equal(res.status, 200);
    assert.equal(res.body.namespace, 'calendar/events/v1');
    assert.deepEqual(res.body._links, { up: [{ href: `${PUBLIC_URL}/` }] });
    const routes = res.body.routes;
    const keys = Object.keys(routes);
    assert.equal(keys[0], '/calendar/events/v1');
    for (const key of [
      '/calendar/events/v1/categories',
      '/calendar/events/v1/categories/(?P<id>\\d+)',
      '/calendar/events/v1/tags',
      '/calendar/events/v1/tags/(?P<id>\\d+)',
    ]) {
      assert.ok(key in routes, key);
    }
    // every route Fastify serves under the namespace is in the index
    const served = t.app.registry.specs.map((s) => s.path);
    assert.equal(new Set(served.map((p) => p.replace(/:id/, '(?P<id>\\d+)'))).size, keys.length);

    const categories = routes['/calendar/events/v1/categories'];
    assert.deepEqual(categories.methods, ['GET', 'POST']);
    assert.equal(categories.endpoints.length, 2);
    assert.deepEqual(categories.endpoints[0].methods, ['GET']);
    assert.deepEqual(categories.endpoints[0].args.page, {
      description: 'The page of the result set, from 1.',
      default: 1,
      type: 'integer',
      required: false,
    });
    assert.equal(categories.endpoints[1].args.name.required, true);
    assert.equal(categories.endpoints[1].args.name.type, 'string');
    assert.deepEqual(categories._links, { self: [{ href: `${NS}/categories` }] });

    const item = routes['/calendar/events/v1/categories/(?P<id>\\d+)'];
    assert.deepEqual(item.methods, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
    assert.equal(item._links, undefined);
    // path arguments are required, as the original's index says (fixtures/tec-6.17 anonymous/index)
    assert.equal(item.endpoints[0].args.id.required, true);

    const self = routes['/calendar/events/v1'];
    assert.deepEqual(self.endpoints[0].args.namespace, { default: 'calendar/events/v1', type: 'string', required: false });
    assert.deepEqual(self.endpoints[0].args.context, { default: 'view', type: 'string', required: false });
  });

  it('answers 404 rest_invalid_namespace for another namespace', async () => {
    const res = await t.get('/calendar/events/v1', { query: { namespace: 'wp/v2' } });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'rest_invalid_namespace');
  });

  it('has a root index naming the namespace', async () => {
    const res = await t.get('/');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.namespaces, ['calendar/events/v1']);
    assert.ok('/calendar/events/v1/tags' in res.body.routes);
    // the site's facts, as the WordPress root index gives them (UTC here)
    assert.equal(res.body.name, 'Events Calendar');
    assert.equal(res.body.timezone_string, 'UTC');
    assert.equal(res.body.gmt_offset, 0);
  });
});

describe('unexpected errors', () => {
  it('answer 500 with a JSON error and no internals, logged with the request id', async () => {
    const db = await createTestDatabase();
    const lines: string[] = [];
    const stream = { write: (line: string) => void lines.push(line) };
    const app = await buildApp(loadConfig({ PUBLIC_URL }), db.storage, { logger: { level: 'error', stream } });
    app.get('/boom', async () => {
      throw new Error('secret internals at /srv/db');
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/boom', headers: { 'x-request-id': 'req-abc' } });
      assert.equal(res.statusCode, 500);
      const body = res.json();
      assertErrorShape(body, 'rest_internal_error', 500);
      assert.equal(body.data.request_id, 'req-abc');
      assert.doesNotMatch(res.body, /secret|srv|stack/);
      assert.ok(lines.some((l) => l.includes('req-abc') && l.includes('secret internals')));
    } finally {
      await app.close();
      await db.drop();
    }
  });
});
