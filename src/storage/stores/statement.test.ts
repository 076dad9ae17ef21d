import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import type { Dialect } from '../dialects/dialect.js';
import { builtOnce } from './statement.js';

describe('builtOnce', () => {
  it('builds a statement once per key and dialect, keeps its text and parameters, and drops the least recently used past 500', () => {
    const a = {} as Dialect;
    const b = {} as Dialect;
    let builds = 0;
    const build = (text: string, parameters: unknown[]) => () => {
      builds++;
      return CompiledQuery.raw(text, parameters);
    };
    const first = builtOnce(a, 'k', build('select ?', [1]));
    const again = builtOnce(a, 'k', build('select ? -- other', [2]));
    assert.equal(builds, 1, 'the same key on the same dialect: built once');
    assert.equal(again, first);
    assert.deepEqual([again.sql, again.parameters], ['select ?', [1]]);
    assert.equal(builtOnce(b, 'k', build('select ?', [3])).parameters[0], 3, 'another dialect builds its own');
    assert.equal(builds, 2);
    // 500 more keys on a: 'k' was the least recently used and goes; one used meanwhile stays
    builtOnce(a, 'used', build('select 1', []));
    for (let i = 0; i < 499; i++) {
      builtOnce(a, `key ${i}`, build('select 2', []));
      if (i === 250) builtOnce(a, 'used', build('not again', []));
    }
    const built = builds;
    builtOnce(a, 'used', build('not again', []));
    assert.equal(builds, built, 'a key used recently is kept');
    builtOnce(a, 'k', build('select ? -- rebuilt', [4]));
    assert.equal(builds, built + 1, 'the least recently used key was dropped');
  });
});
