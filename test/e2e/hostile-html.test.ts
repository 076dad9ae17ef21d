/**
 * Hostile HTML through the API: contributors and authors (no `unfiltered_html`) write it into an event's
 * description and excerpt and into an inline venue's text fields, and what the API answers (and stores) must hold
 * nothing a browser would run. Editors keep their HTML as sent, as in WordPress.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { elementsIn, executableVectors, HOSTILE_HTML } from '../helpers/html-safety.js';

describe('hostile HTML written through the API', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  for (const role of ['contributor', 'author'] as const) {
    it(`leaves nothing executable in what the ${role} wrote`, async () => {
      const unsafe: Record<string, string[]> = {};
      for (const [name, html] of Object.entries(HOSTILE_HTML)) {
        const res = await t.post('/events', {
          as: role,
          json: {
            title: name,
            description: `${html} end`,
            excerpt: `${html} end`,
            start_date: '+1 week 10am',
            end_date: '+1 week 12pm',
            venue: { venue: `Venue ${name}`, address: `${html} 1 Main St`, city: html },
          },
        });
        assert.equal(res.status, 201, `${name}: ${res.text}`);
        const again = await t.get(`/events/${res.body.id}`, { as: 'administrator' });
        assert.equal(again.status, 200);
        for (const e of [res.body, again.body]) {
          const found = [...executableVectors(e.description), ...executableVectors(e.excerpt)];
          for (const field of ['address', 'city']) {
            const text = e.venue[field] ?? '';
            found.push(...elementsIn(text).map((el) => `<${el}> in venue ${field}`));
          }
          if (found.length > 0) unsafe[name] = found;
        }
      }
      assert.deepEqual(unsafe, {});
    });
  }

  it("sanitises the description, still wrapped in paragraphs, and keeps the editor's HTML", async () => {
    const html = '<a href="java&Tab;script:alert(1)" title="t">x</a> <img src=x onerror=alert(1)>';
    const byContributor = await t.post('/events', {
      as: 'contributor',
      json: { title: 'C', description: html, start_date: '+1 week 10am', end_date: '+1 week 12pm' },
    });
    assert.equal(byContributor.status, 201);
    assert.equal(byContributor.body.description, '<p><a title="t">x</a> <img src="x" /></p>');
    const byEditor = await t.post('/events', {
      as: 'editor',
      json: { title: 'E', description: html, start_date: '+1 week 10am', end_date: '+1 week 12pm' },
    });
    assert.equal(byEditor.status, 201);
    assert.equal(byEditor.body.description, `<p>${html}</p>`);
  });
});
