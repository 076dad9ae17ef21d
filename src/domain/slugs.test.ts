import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sanitizeSlug, uniqueSlug } from './slugs.js';

describe('slugs', () => {
  it('sanitises like WordPress', () => {
    assert.equal(sanitizeSlug('Hello World'), 'hello-world');
    assert.equal(sanitizeSlug('  Crème Brûlée!  '), 'creme-brulee');
    assert.equal(sanitizeSlug('v1.2 release'), 'v1-2-release');
    assert.equal(sanitizeSlug('Rock &amp; Roll'), 'rock-roll');
    assert.equal(sanitizeSlug('<b>Bold</b> move'), 'bold-move');
    assert.equal(sanitizeSlug('a -- b'), 'a-b');
    assert.equal(sanitizeSlug('Straße'), 'strasse');
    assert.equal(sanitizeSlug('Концерт'), 'концерт');
    assert.equal(sanitizeSlug('!!!'), '');
    assert.equal(sanitizeSlug('snake_case'), 'snake_case');
  });

  it('numbers taken slugs from 2', () => {
    assert.equal(uniqueSlug('a', new Set()), 'a');
    assert.equal(uniqueSlug('a', new Set(['a'])), 'a-2');
    assert.equal(uniqueSlug('a', new Set(['a', 'a-2', 'a-3'])), 'a-4');
    assert.equal(uniqueSlug('a', new Set(['a-2'])), 'a');
  });
});
