import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstFreeSlug, MAX_SLUG_LENGTH, sanitizeAnySlug, sanitizeSlug } from './slugs.js';

describe('slugs', () => {
  it('makes the same slug by its short path as by the general one, for letters, digits, spaces, _ and -', () => {
    const alphabet = 'aBz09 _-';
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: Math.floor(random() * 30) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      assert.equal(sanitizeSlug(text), sanitizeAnySlug(text), JSON.stringify(text));
    }
    const long = `${'Word '.repeat(60)}-`;
    assert.equal(sanitizeSlug(long), sanitizeAnySlug(long));
    assert.equal(sanitizeSlug(long).length, MAX_SLUG_LENGTH);
  });

  it('sanitises like WordPress', () => {
    assert.equal(sanitizeSlug('Hello World'), 'hello-world');
    assert.equal(sanitizeSlug('  Crème Brûlée!  '), 'creme-brulee');
    assert.equal(sanitizeSlug('v1.2 release'), 'v1-2-release');
    assert.equal(sanitizeSlug('Rock &amp; Roll'), 'rock-roll');
    assert.equal(sanitizeSlug('<b>Bold</b> move'), 'bold-move');
    assert.equal(sanitizeSlug('a -- b'), 'a-b');
    assert.equal(sanitizeSlug('Straße'), 'strase', 'remove_accents outside German locales');
    assert.equal(sanitizeSlug('Þórður Œuvre ĳssel'), 'thordur-oeuvre-ijssel');
    assert.equal(sanitizeSlug('Концерт'), 'концерт');
    assert.equal(sanitizeSlug('!!!'), '');
    assert.equal(sanitizeSlug('snake_case'), 'snake_case');
  });

  it('keeps what WordPress keeps outside Latin letters (slugs recorded from a TEC 6.17 site)', () => {
    assert.equal(sanitizeSlug('Ελληνική βραδιά μουσικής'), 'ελληνική-βραδιά-μουσικής');
    assert.equal(sanitizeSlug('日本語で話そう：初心者の会'), '日本語で話そう：初心者の会');
    assert.equal(sanitizeSlug('🎉 Launch Party 🚀'), '🎉-launch-party-🚀');
    assert.equal(sanitizeSlug('New Year’s Eve Gala 2022 → 2023'), 'new-years-eve-gala-2022-→-2023');
    assert.equal(sanitizeSlug('Café Crème & Crêpes — Soirée Française'), 'cafe-creme-crepes-soiree-francaise');
    assert.equal(sanitizeSlug('Ünïcödé Ümlaut Fest — „Grü“'), 'unicode-umlaut-fest-gru');
    // anonymous/events/single/58.json: the zero-width joiners of the emoji dropped, the variation selector kept
    assert.equal(sanitizeSlug('Family day 👨\u200d👩\u200d👧\u200d👦 &#038; 🏳️\u200d🌈 parade'), 'family-day-👨👩👧👦-🏳️🌈-parade');
    assert.equal(sanitizeSlug('a\u200bb \ufeffc\u200e • d'), 'ab-c-d');
    assert.equal(sanitizeSlug('Cafe\u0301'), 'cafe');
  });

  it('numbers taken slugs from 2, looking them up in batches', async () => {
    const existing = (taken: string[]) => async (candidates: string[]) => new Set(candidates.filter((c) => taken.includes(c)));
    assert.equal(await firstFreeSlug('a', existing([])), 'a');
    assert.equal(await firstFreeSlug('a', existing(['a'])), 'a-2');
    assert.equal(await firstFreeSlug('a', existing(['a', 'a-2', 'a-3'])), 'a-4');
    assert.equal(await firstFreeSlug('a', existing(['a-2'])), 'a');
    const many = ['a', ...Array.from({ length: 40 }, (_, i) => `a-${i + 2}`)];
    let lookups = 0;
    const counted = async (candidates: string[]) => {
      lookups++;
      return existing(many)(candidates);
    };
    assert.equal(await firstFreeSlug('a', counted), 'a-42');
    assert.equal(lookups, 4, 'the base alone, then a-2…a-21, a-22…a-41 and a-42…a-61');
    lookups = 0;
    assert.equal(await firstFreeSlug('b', counted), 'b');
    assert.equal(lookups, 1, 'a free base costs one lookup');
  });

  it('shortens a long base to make room for the number, as WordPress does (the column holds 200)', async () => {
    const base = sanitizeSlug('x'.repeat(300));
    assert.equal(base.length, MAX_SLUG_LENGTH);
    const next = await firstFreeSlug(base, async (c) => new Set(c.filter((s) => s === base)));
    assert.equal(next, `${'x'.repeat(198)}-2`);
    assert.equal(next.length, MAX_SLUG_LENGTH);
    const dashed = `${'y'.repeat(197)}-zz`;
    assert.equal(
      await firstFreeSlug(dashed, async (c) => new Set(c.filter((s) => s === dashed))),
      `${'y'.repeat(197)}-2`,
      'no dash left before the number',
    );
  });
});
