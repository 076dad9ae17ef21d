/**
 * A site import takes only what the API itself would take: a venue's or organizer's website that is not an
 * absolute http(s) URL (`javascript:`, `data:`) — which `POST /venues` refuses — is not stored from a site
 * either, and the pages link no website that is not http(s), as they already did for events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { localEvents, recordedSite, runImport } from '../helpers/tec-import.js';
import { TecSite } from '../helpers/tec-site.js';

describe('site import: hostile websites', () => {
  let t: TestApp;
  let site: TecSite;
  let job: any;
  before(async () => {
    site = await TecSite.start(recordedSite());
    // (bodies are JSON text: its slashes are escaped)
    site.transform = (e) => ({
      ...e,
      body: e.body
        .replaceAll('https:\\/\\/loft.example.com', 'javascript:alert(1)')
        .replaceAll('https:\\/\\/nycdevs.example.com\\/', 'data:text\\/html,<script>alert(2)<\\/script>'),
    });
    t = await createTestApp({ SITE_TIMEZONE: 'America/New_York', IMPORT_ALLOW_PRIVATE: 'on' });
    job = await runImport(t, { url: site.url });
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  it('stores no website a write through the API would refuse, and links none from the pages', async () => {
    assert.equal(job.state, 'done', job.failure);
    const refused = await t.post('/venues', { as: 'administrator', json: { venue: 'Direct', website: 'javascript:alert(1)' } });
    assert.equal(refused.status, 400, 'the API refuses such a website');
    const local = await localEvents(t);
    const loft = local.get('127.0.0.1?id=31').venue;
    const guild = local.get('127.0.0.1?id=31').organizer.find((o: any) => o.organizer === 'NYC Developers Guild');
    assert.equal(loft.venue, 'The Loft Coworking');
    // (an empty website is left out of the answer, as in the original)
    assert.equal(loft.website ?? '', '');
    assert.equal(guild.website ?? '', '');
    for (const path of [`/venue/${loft.slug}/`, `/organizer/${guild.slug}/`, new URL(local.get('127.0.0.1?id=31').url).pathname]) {
      const page = await t.app.inject({ method: 'GET', url: path });
      assert.equal(page.statusCode, 200, path);
      assert.doesNotMatch(page.body, /javascript:|data:text/, path);
    }
  });

  it('links no website of a venue or organizer that is not http(s) from the pages (one stored before, or by the services)', async () => {
    const admin = t.actor('administrator');
    const venue = await t.app.services.venues.create(admin, { title: 'Stored venue', website: 'javascript:alert(3)' });
    const organizer = await t.app.services.organizers.create(admin, { title: 'Stored organizer', website: 'javascript:alert(4)' });
    for (const path of [`/venue/${venue.record.slug}/`, `/organizer/${organizer.record.slug}/`]) {
      const page = await t.app.inject({ method: 'GET', url: path });
      assert.equal(page.statusCode, 200, path);
      assert.doesNotMatch(page.body, /javascript:/, path);
    }
  });
});
