import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkUrl, feedText, feedUrl, isPrivateAddress } from './fetch.js';

describe('the SSRF guard', () => {
  it('refuses private, loopback, link-local, unique-local and unspecified addresses, IPv4 and IPv6, mapped forms too', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '64:ff9b::a9fe:a9fe',
      'ff02::1',
    ]) {
      assert.equal(isPrivateAddress(a), true, a);
    }
  });
  it('lets public addresses through', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPrivateAddress(a), false, a);
  });
  it('checks the URL form: http(s) only, no credentials, literal private hosts refused unless allowed', () => {
    assert.throws(() => checkUrl('ftp://example.org/a.ics', false), /http and https only/);
    assert.throws(() => checkUrl('http://user:pw@example.org/', false), /credentials/);
    assert.throws(() => checkUrl('http://2130706433/', false), /127\.0\.0\.1 is a private/);
    assert.equal(checkUrl('http://127.0.0.1:8080/a.ics', true).port, '8080');
  });
});

describe("a fetched feed's text", () => {
  const cafe = Buffer.from('SUMMARY:Caf\u00e9', 'latin1'); // windows-1252 / ISO-8859-1: é is the one byte 0xE9

  it('is read in the charset the Content-Type names, quoted or not, a BOM dropped', () => {
    assert.equal(feedText(cafe, 'text/calendar; charset=windows-1252'), 'SUMMARY:Café');
    assert.equal(feedText(cafe, 'text/calendar;charset="ISO-8859-1"'), 'SUMMARY:Café');
    assert.equal(feedText(Buffer.from('\ufeffSUMMARY:Café', 'utf8'), 'text/calendar; charset=UTF-8'), 'SUMMARY:Café');
  });

  it('is UTF-8, strictly, when no other charset is named, or one TextDecoder does not know', () => {
    assert.equal(feedText(Buffer.from('SUMMARY:Café', 'utf8'), undefined), 'SUMMARY:Café');
    assert.equal(feedText(cafe, 'text/calendar'), undefined);
    assert.equal(feedText(cafe, 'text/calendar; charset=utf-8'), undefined);
    assert.equal(feedText(cafe, 'text/calendar; charset=no-such-charset'), undefined);
    assert.equal(feedText(Buffer.from('SUMMARY:Café', 'utf8'), 'text/calendar; charset=no-such-charset'), 'SUMMARY:Café');
  });
});

describe("a feed's URL", () => {
  it('reads webcal:// as http:// and webcals:// as https://, whatever their case; leaves other URLs as given', () => {
    assert.equal(feedUrl('webcal://example.org/events/?ical=1'), 'http://example.org/events/?ical=1');
    assert.equal(feedUrl('WEBCALS://example.org/cal.ics'), 'https://example.org/cal.ics');
    assert.equal(feedUrl('https://example.org/cal.ics'), 'https://example.org/cal.ics');
    assert.equal(feedUrl('webcal:/example.org'), 'webcal:/example.org', 'not a webcal:// link: refused as any other URL');
  });
});
