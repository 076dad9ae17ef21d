import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { icalAliasUrl } from './ical-aliases.js';

const today = () => ({ year: 2027, month: 2, day: 14 });
const alias = (url: string) => icalAliasUrl(url, today);

describe("the original's iCalendar URLs", () => {
  it('map list, month and day views to the feed with their window', () => {
    assert.equal(alias('/events/?ical=1'), '/calendar/events/v1/events.ics?download=1');
    assert.equal(alias('/events/list/?ical=1&tribe-bar-search=x'), '/calendar/events/v1/events.ics?search=x&download=1');
    assert.equal(alias('/events/month/2027-03/?ical=1'), '/calendar/events/v1/events.ics?start_date=2027-03-01&end_date=2027-03-31&download=1');
    assert.equal(alias('/events/month/?ical=1'), '/calendar/events/v1/events.ics?start_date=2027-02-01&end_date=2027-02-28&download=1');
    assert.equal(alias('/events/today/?outlook-ical=1'), '/calendar/events/v1/events.ics?start_date=2027-02-14&end_date=2027-02-14&download=1');
    assert.equal(alias('/events/2028-02-29/?ical=1'), '/calendar/events/v1/events.ics?start_date=2028-02-29&end_date=2028-02-29&download=1');
  });

  it("carry the pages' filter bar: its keyword as the feed's search, its date as the view's window", () => {
    assert.equal(alias('/events/list/?keyword=choir&ical=1'), '/calendar/events/v1/events.ics?search=choir&download=1');
    assert.equal(alias('/events/month/?date=2027-01&ical=1'), '/calendar/events/v1/events.ics?start_date=2027-01-01&end_date=2027-01-31&download=1');
    assert.equal(
      alias('/events/month/?tribe-bar-date=2027-04-09&ical=1'),
      '/calendar/events/v1/events.ics?start_date=2027-04-01&end_date=2027-04-30&download=1',
    );
    // a month in the path wins over the bar's date
    assert.equal(
      alias('/events/month/2027-03/?date=2027-01&ical=1'),
      '/calendar/events/v1/events.ics?start_date=2027-03-01&end_date=2027-03-31&download=1',
    );
    assert.equal(
      alias('/events/today/?date=2027-05-02&ical=1'),
      '/calendar/events/v1/events.ics?start_date=2027-05-02&end_date=2027-05-02&download=1',
    );
    assert.equal(alias('/events/list/?date=2027-01-10&ical=1'), '/calendar/events/v1/events.ics?start_date=2027-01-10&download=1');
    // a date that names no day or month is left out, as the pages leave it out
    assert.equal(alias('/events/month/?date=2027-1&ical=1'), '/calendar/events/v1/events.ics?start_date=2027-02-01&end_date=2027-02-28&download=1');
  });

  it('keep category and tag archives as filters, and map an event page to its file', () => {
    assert.equal(alias('/events/category/jazz-club/?ical=1'), '/calendar/events/v1/events.ics?categories=jazz-club&download=1');
    assert.equal(
      alias('/events/tag/free/month/2027-05/?ical=1'),
      '/calendar/events/v1/events.ics?tags=free&start_date=2027-05-01&end_date=2027-05-31&download=1',
    );
    assert.equal(alias('/event/summer-fest/?ical=1'), '/calendar/events/v1/events/by-slug/summer-fest.ics?download=1');
    // with the pages on, the event's page answers it (an unknown slug is its 404 page)
    assert.equal(icalAliasUrl('/event/summer-fest/?ical=1', today, true), '/event/summer-fest/?ical=1');
    // one occurrence's page is left to the page route (an imported Pro occurrence's path redirects first)
    assert.equal(alias('/event/monday-choir/2026-12-07/?ical=1'), '/event/monday-choir/2026-12-07/?ical=1');
    assert.equal(alias('/?post_type=tribe_events&ical=1'), '/calendar/events/v1/events.ics?download=1');
  });

  it("read the view from WordPress' query variables on the site's root", () => {
    assert.equal(
      alias('/?post_type=tribe_events&ical=1&eventDisplay=month&eventDate=2025-03'),
      '/calendar/events/v1/events.ics?start_date=2025-03-01&end_date=2025-03-31&download=1',
    );
    assert.equal(
      alias('/?post_type=tribe_events&ical=1&eventDisplay=month'),
      '/calendar/events/v1/events.ics?start_date=2027-02-01&end_date=2027-02-28&download=1',
    );
    assert.equal(
      alias('/?post_type=tribe_events&ical=1&eventDisplay=day&eventDate=2025-03-08'),
      '/calendar/events/v1/events.ics?start_date=2025-03-08&end_date=2025-03-08&download=1',
    );
    assert.equal(
      alias('/?post_type=tribe_events&ical=1&eventDisplay=list&tribe_events_cat=jazz'),
      '/calendar/events/v1/events.ics?categories=jazz&download=1',
    );
    assert.equal(alias('/?post_type=tribe_events&ical=1&tag=outdoor'), '/calendar/events/v1/events.ics?tags=outdoor&download=1');
    assert.equal(
      alias('/?post_type=tribe_events&ical=1&eventDisplay=month&eventDate=2025-13'),
      '/?post_type=tribe_events&ical=1&eventDisplay=month&eventDate=2025-13',
    );
  });

  it('leave every other URL alone', () => {
    for (const url of [
      '/events/',
      '/events/?ical=0',
      '/?ical=1',
      '/events/month/2027-13/?ical=1',
      '/events/week/?ical=1',
      '/event/a/b/c/?ical=1',
      '/events/category/%E0%A4%A/?ical=1',
      '/calendar/events/v1/events?ical=1',
    ]) {
      assert.equal(alias(url), url, url);
    }
  });
});
