import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Urls } from './urls.js';

describe('urls', () => {
  it('makes global ids from the host without its port, then the path (the original Global_ID origin)', () => {
    assert.equal(new Urls('http://calendar.test').globalId(7), 'calendar.test?id=7');
    assert.equal(new Urls('http://example.org:8080/sub/').globalId(7), 'example.org/sub?id=7');
    assert.equal(new Urls('https://localhost:18666').globalId(1), 'localhost?id=1');
  });

  it('builds REST URLs under the namespace', () => {
    assert.equal(new Urls('http://example.org:8080/sub/').rest('/events/3'), 'http://example.org:8080/sub/calendar/events/v1/events/3');
  });
});
