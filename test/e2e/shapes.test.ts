/**
 * Every wire shape is declared once, as a response schema; serializers are typed from it and these tests take
 * their key lists from it. The schemas themselves are pinned to the original: the keys, in order, of objects
 * recorded from a real site running The Events Calendar 6.17 (test/fixtures/tec-6.17-key-order.json).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { TObject } from '@sinclair/typebox';
import { CategorySchema, TagSchema } from '../../src/http/routes/categories-tags/categories-tags.schemas.js';
import { EventListSchema, EventSchema, V1_EVENT_KEYS } from '../../src/http/routes/events/events.schemas.js';
import { OrganizerSchema, VenueSchema } from '../../src/http/routes/venues-organizers/venues-organizers.schemas.js';
import { EmbeddedTermSchema } from '../../src/http/schemas/components.schemas.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeCategory, makeEvent, makeLinked, makeTag } from '../helpers/factories.js';
import { keysOf, keysWith } from '../helpers/shapes.js';

const recorded = JSON.parse(readFileSync(new URL('../../../test/fixtures/tec-6.17-key-order.json', import.meta.url), 'utf8')).shapes as Record<
  string,
  string[][]
>;

/** The keys the schema always sends (the others are left out when empty or, for json_ld, outside single reads). */
const requiredOf = (schema: TObject) => keysOf(schema).filter((k) => (schema.required ?? []).includes(k));

/** WordPress' `_links` on single terms: the original's core response object leaks them; we leave them out (CONTRACT.md §2.5). */
const NOT_OURS = new Set(['_links']);

/** Whether `keys` appear in `order`, in that order (every one of them present there). */
function inOrder(keys: readonly string[], order: readonly string[]): string | undefined {
  let at = -1;
  for (const k of keys) {
    if (NOT_OURS.has(k)) continue;
    const i = order.indexOf(k);
    if (i === -1) return `${k} is not in the schema`;
    if (i < at) return `${k} comes too early`;
    at = i;
  }
  return undefined;
}

describe('wire shapes: declared once, pinned to the original', () => {
  it("declares every key the original sends, in the original's order", () => {
    const schemaFor: Record<string, TObject> = {
      event_in_list: EventSchema,
      event_single: EventSchema,
      event_list_envelope: EventListSchema,
      venue_single: VenueSchema,
      venue_embedded: VenueSchema,
      organizer_single: OrganizerSchema,
      organizer_embedded: OrganizerSchema,
      term_embedded: EmbeddedTermSchema,
      category: CategorySchema,
      tag: TagSchema,
    };
    for (const [kind, sequences] of Object.entries(recorded)) {
      const schema = schemaFor[kind];
      assert.ok(schema, `a schema for ${kind}`);
      for (const keys of sequences) assert.equal(inOrder(keys, keysOf(schema)), undefined, `${kind}: ${keys.join(',')}`);
    }
    // events keep every key, as the original does: the recorded list item is the schema exactly, minus json_ld
    assert.deepEqual(
      recorded.event_in_list[0],
      V1_EVENT_KEYS.filter((k) => k !== 'json_ld'),
    );
    assert.deepEqual(recorded.event_single[0], V1_EVENT_KEYS);
    assert.deepEqual(recorded.term_embedded[0], keysOf(EmbeddedTermSchema));
  });

  describe('what the service sends', () => {
    let t: TestApp;
    before(async () => (t = await createTestApp()));
    after(() => t.close());

    it("sends events with exactly the schema's keys, in its order (json_ld on single reads only)", async () => {
      const cat = await makeCategory(t, { name: 'Shape category' });
      const venue = await makeLinked(t, 'venue', { venue: 'Shape venue', city: 'Lyon', country: 'France' });
      const organizer = await makeLinked(t, 'organizer', { organizer: 'Shape organizer', email: 'o@example.org' });
      const e = await makeEvent(t, { categories: [cat.id], tags: ['shape-tag'], venue: venue.id, organizer: [organizer.id] });
      const listed = V1_EVENT_KEYS.filter((k) => k !== 'json_ld');
      assert.deepEqual(Object.keys(e), listed, 'the create answer');
      assert.deepEqual(Object.keys((await t.get('/events', { query: { include: e.id } })).body.events[0]), listed, 'a list item');
      const single = (await t.get(`/events/${e.id}`)).body;
      assert.deepEqual(Object.keys(single), V1_EVENT_KEYS, 'a single read');
      assert.deepEqual(Object.keys(single.categories[0]), keysOf(EmbeddedTermSchema));
      assert.equal(inOrder(Object.keys(single.venue), keysOf(VenueSchema)), undefined);
      assert.equal(inOrder(Object.keys(single.organizer[0]), keysOf(OrganizerSchema)), undefined);
    });

    it("sends venues and organizers with the schema's keys in order, always its required ones, empty optional ones left out", async () => {
      for (const [type, schema] of [
        ['venue', VenueSchema],
        ['organizer', OrganizerSchema],
      ] as const) {
        const bare = await makeLinked(t, type, { [type]: `Bare ${type}` });
        assert.deepEqual(Object.keys(bare), keysWith(schema, ['author', 'slug']), `a bare ${type}: the required keys, its author and its slug`);
        const read = (await t.get(`/${type}s/${bare.id}`)).body;
        assert.equal(inOrder(Object.keys(read), keysOf(schema)), undefined);
        for (const k of requiredOf(schema)) assert.ok(k in read, `${type} has ${k}`);
      }
    });

    it("sends categories and tags with exactly the schema's keys", async () => {
      const cat = await makeCategory(t, { name: 'Shape parent' });
      const tag = await makeTag(t, { name: 'Shape tag 2' });
      assert.deepEqual(Object.keys((await t.get(`/categories/${cat.id}`)).body), keysOf(CategorySchema));
      assert.deepEqual(Object.keys((await t.get(`/tags/${tag.id}`)).body), keysOf(TagSchema));
    });
  });
});
