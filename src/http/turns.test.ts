import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Turns } from './turns.js';

describe('Turns', () => {
  it('lets the first read of a turn start at once, and the others one per later turn, in order of arrival', async () => {
    const turns = new Turns();
    const started: string[] = [];
    const start = (name: string) => {
      const turn = turns.take();
      if (turn === undefined) started.push(name);
      else void turn.then(() => started.push(name));
    };
    start('a');
    start('b');
    start('c');
    start('d');
    assert.deepEqual(started, ['a']);
    assert.equal(turns.queued, 3);
    await nextTurn();
    assert.deepEqual(started, ['a', 'b']);
    await nextTurn();
    assert.deepEqual(started, ['a', 'b', 'c']);
    await nextTurn();
    assert.deepEqual(started, ['a', 'b', 'c', 'd']);
    assert.equal(turns.queued, 0);
  });

  it('lets a read start at once again once a turn has passed with none waiting', async () => {
    const turns = new Turns();
    assert.equal(turns.take(), undefined);
    await nextTurn();
    await nextTurn();
    assert.equal(turns.take(), undefined);
    const second = turns.take();
    assert.ok(second instanceof Promise, 'a second read in the same turn waits');
    await second;
  });

  it('lets a read that arrives while others wait queue behind them, even in a turn nobody has taken', async () => {
    const turns = new Turns();
    const order: number[] = [];
    turns.take();
    const waits = [1, 2].map((n) => turns.take()?.then(() => order.push(n)));
    await nextTurn();
    // one waiter started in this turn; a newcomer must not overtake the one still waiting
    const late = turns.take()?.then(() => order.push(3));
    assert.ok(late !== undefined);
    await Promise.all([...waits, late]);
    assert.deepEqual(order, [1, 2, 3]);
  });
});
