import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { ApiError } from '../domain/errors.js';
import type { Services } from '../domain/services.js';
import { accept, arg, coerce, Invalid, invalid, parseBoolean, parseInteger, parseList, resolveArgs } from './params.js';

describe('WordPress-style coercion', () => {
  it('reads booleans as WordPress does', () => {
    for (const v of [true, 'true', 'TRUE', '1', 1]) assert.equal(parseBoolean(v), true);
    for (const v of [false, 'false', 'False', '0', 0]) assert.equal(parseBoolean(v), false);
    for (const v of ['', 'yes', 'on', 2, null, [], {}]) assert.equal(parseBoolean(v), undefined);
  });

  it('reads integers from numbers and integral strings', () => {
    assert.equal(parseInteger('12'), 12);
    assert.equal(parseInteger(' 12 '), 12);
    assert.equal(parseInteger('-3'), -3);
    assert.equal(parseInteger('4.0'), 4);
    assert.equal(parseInteger('1e3'), 1000, 'PHP is_numeric reads exponents');
    assert.equal(parseInteger('.5e1'), 5);
    assert.equal(parseInteger('12345678901234567890'), 999_999_999_999_999, 'held at a size arithmetic stays exact at');
    for (const v of ['1.5', 'foo', '', '1e-3', '0x10', 1.5, '1e400', 'Infinity', true]) assert.equal(parseInteger(v), undefined, String(v));
  });

  it('reads lists as arrays or CSV; integer lists also split on spaces', () => {
    assert.deepEqual(parseList('1,2, 3', true), ['1', '2', '3']);
    assert.deepEqual(parseList('1 2', true), ['1', '2']);
    assert.deepEqual(parseList('Live Music,Jazz', false), ['Live Music', 'Jazz']);
    assert.deepEqual(parseList(['a', 'b'], false), ['a', 'b']);
    assert.deepEqual(parseList('', true), []);
  });

  it('coerces by schema and refuses wrong types', () => {
    assert.deepEqual(coerce('1,2', Type.Array(Type.Integer()), 'ids'), [1, 2]);
    assert.ok(coerce('1,x', Type.Array(Type.Integer()), 'ids') instanceof Invalid);
    assert.ok(coerce(5, Type.String(), 's') instanceof Invalid);
    assert.equal(coerce('5', Type.String(), 's'), '5');
    assert.ok(coerce('c', Type.String({ enum: ['a', 'b'] }), 'e') instanceof Invalid);
    assert.equal(coerce('2.5', Type.Number(), 'n'), 2.5);
    assert.ok(coerce('91', Type.Number({ maximum: 90 }), 'lat') instanceof Invalid);
    assert.ok(coerce([], Type.Object({}), 'o') instanceof Invalid);
  });
});

describe('resolveArgs', () => {
  const specs = {
    id: arg(Type.Integer()),
    name: arg(Type.String(), { required: true, check: (v: string) => (v === '' ? invalid() : undefined) }),
    page: arg(Type.Integer(), { default: 1 }),
    per_page: arg(Type.Integer(), { default: 4, check: (v: number) => accept(Math.min(v, 50)) }),
    flag: arg(Type.Boolean()),
  };

  it('merges path, body, query and defaults, path first', async () => {
    const args = await resolveArgs(
      specs,
      { path: { id: '7' }, body: { id: 8, name: 'body' }, query: { name: 'query', per_page: '80' } },
      {} as Services,
    );
    assert.deepEqual(args, { id: 7, name: 'body', page: 1, per_page: 50 });
  });

  it('lists every missing required argument', async () => {
    await assert.rejects(resolveArgs(specs, { path: {}, body: undefined, query: {} }, {} as Services), (e: ApiError) => {
      assert.equal(e.code, 'rest_missing_callback_param');
      assert.deepEqual(e.extra.params, ['name']);
      return true;
    });
  });

  it('lists every invalid argument in one error', async () => {
    await assert.rejects(resolveArgs(specs, { path: {}, body: { name: '', flag: 'maybe', page: 'x' }, query: {} }, {} as Services), (e: ApiError) => {
      assert.equal(e.code, 'rest_invalid_param');
      assert.equal(e.status, 400);
      assert.deepEqual(Object.keys(e.extra.params as object).sort(), ['flag', 'name', 'page']);
      return true;
    });
  });

  it('passes JSON null through for optional arguments (clearing)', async () => {
    const args = await resolveArgs(specs, { path: {}, body: { name: 'n', flag: null }, query: {} }, {} as Services);
    assert.equal(args.flag, null);
  });

  it('gives JSON null the default of an argument that has one (nothing can clear a page size)', async () => {
    const args = await resolveArgs(specs, { path: {}, body: { name: 'n', page: null, per_page: null }, query: {} }, {} as Services);
    assert.equal(args.page, 1);
    assert.equal(args.per_page, 4);
  });
});
