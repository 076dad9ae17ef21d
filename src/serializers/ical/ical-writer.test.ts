import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeText, fold, IcalWriter, paramValue } from './ical-writer.js';

const octets = (s: string) => Buffer.byteLength(s, 'utf8');

describe('iCalendar lines', () => {
  it('escapes TEXT: backslash, semicolon, comma and every newline form; drops other controls', () => {
    assert.equal(escapeText('a\\b;c,d\r\ne\nf\rg\u0000h\u0007i\tj'), 'a\\\\b\\;c\\,d\\ne\\nf\\ng' + 'hi\tj');
  });

  it('caret-encodes parameter values (RFC 6868) and quotes them when they hold : ; or ,', () => {
    assert.equal(paramValue('Org "Q" ^x'), "Org ^'Q^' ^^x");
    assert.equal(paramValue('a\nb'), 'a^nb');
    assert.equal(paramValue('Doe, Jane: MD'), '"Doe, Jane: MD"');
  });

  it('folds at 75 octets, continuation lines at 74 after their space, never inside a character', () => {
    for (const unit of ['a', 'é', '€', '🎷']) {
      const line = `SUMMARY:${unit.repeat(200)}`;
      const folded = fold(line);
      const physical = folded.split('\r\n');
      assert.ok(physical.length > 1);
      assert.ok(
        physical.every((l) => octets(l) <= 75),
        unit,
      );
      assert.ok(physical.slice(1).every((l) => l.startsWith(' ')));
      // unfolding gives the line back, and no physical line holds half a character
      assert.equal(physical.map((l, i) => (i === 0 ? l : l.slice(1))).join(''), line);
      assert.ok(physical.every((l) => !/[\ud800-\udbff]$/.test(l) && !/^ ?[\udc00-\udfff]/.test(l)));
      // lines are filled: all but the last within one character of the limit
      for (const l of physical.slice(0, -1)) assert.ok(octets(l) > 75 - octets(unit), `${unit}: ${octets(l)}`);
    }
    assert.equal(fold('SHORT:line'), 'SHORT:line');
    const exact = `X:${'a'.repeat(73)}`;
    assert.equal(fold(exact), exact);
    assert.equal(fold(`${exact}b`).split('\r\n').length, 2);
  });

  it('ends every line, the last included, with CRLF and writes nothing for empty text', () => {
    const text = new IcalWriter().begin('VCALENDAR').text('X-EMPTY', '').text('SUMMARY', 'x').end('VCALENDAR').toString();
    assert.equal(text, 'BEGIN:VCALENDAR\r\nSUMMARY:x\r\nEND:VCALENDAR\r\n');
  });
});
