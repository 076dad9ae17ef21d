import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { costNumbers, costValues, deriveCurrency, formatCost, normaliseNumber } from './cost.js';

describe('cost', () => {
  it('normalises decimal and thousands separators', () => {
    assert.equal(normaliseNumber('1,000.50'), '1000.50');
    assert.equal(normaliseNumber('1.000,50'), '1000.50');
    assert.equal(normaliseNumber('6,50'), '6.50');
    assert.equal(normaliseNumber('1,000'), '1000');
    assert.equal(normaliseNumber('6.50'), '6.50');
  });

  it('finds every number, unique and ascending', () => {
    assert.deepEqual(costNumbers(['30$', '0$', '20$']), ['0', '20', '30']);
    assert.deepEqual(costNumbers(['$8.50 - $6.50']), ['6.50', '8.50']);
    assert.deepEqual(costNumbers(['Donation']), []);
  });

  it('derives the symbol and position', () => {
    assert.deepEqual(deriveCurrency(['20$']), { symbol: '$', position: 'postfix' });
    assert.deepEqual(deriveCurrency(['€ 20']), { symbol: '€', position: 'prefix' });
    assert.deepEqual(deriveCurrency(['0$', '20$', '30$']), { symbol: '$', position: 'postfix' });
    assert.deepEqual(deriveCurrency(['$20', '20€']), { symbol: '', position: '' });
    assert.deepEqual(deriveCurrency(['23']), { symbol: '', position: '' });
    // a range in one string names none, as recorded on the original (`$199 - $499` → "", shown `$199 – $499`)
    assert.deepEqual(deriveCurrency(['$199 - $499']), { symbol: '', position: '' });
    assert.deepEqual(deriveCurrency(['€10 - €20']), { symbol: '', position: '' });
    assert.equal(formatCost(['$199 - $499'], '', ''), '$199 \u2013 $499');
    assert.deepEqual(deriveCurrency(['from 10 per person']), { symbol: '', position: '' }, 'words are not a symbol');
  });

  it('formats the display string like the original', () => {
    assert.equal(formatCost(['23'], '$', 'prefix'), '$23');
    assert.equal(formatCost(['23'], '', ''), '$23');
    assert.equal(formatCost(['20$'], '$', 'postfix'), '20$');
    assert.equal(formatCost(['0$', '20$', '30$'], '$', 'postfix'), 'Free \u2013 30$');
    // a lone "0" is no cost (PHP's empty()); a zero among others, or written otherwise, is Free
    assert.equal(formatCost(['0'], '', ''), '');
    assert.equal(formatCost(['$0'], '$', 'prefix'), 'Free');
    assert.equal(formatCost([], '', ''), '');
    assert.equal(formatCost(['Donation <b>'], '', ''), 'Donation &lt;b&gt;');
  });

  it('details list the numbers as strings, else the text as written', () => {
    assert.deepEqual(costValues(['6.50', '8.50']), ['6.50', '8.50']);
    assert.deepEqual(costValues(['Donation']), ['donation']);
    assert.deepEqual(costValues(['Pay what you can']), ['pay-what-you-can']);
    assert.deepEqual(costValues(['0']), []);
    assert.deepEqual(costValues([]), []);
  });
});
