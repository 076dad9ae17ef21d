import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gridBounds, monthGrid } from './month-grid.js';

const item = (id: number, firstDay: string, lastDay = firstDay) => ({ id, firstDay, lastDay });

describe('month grid', () => {
  it('covers six weeks from the Monday on or before the 1st', () => {
    assert.deepEqual(gridBounds('2025-11'), { first: '2025-10-27', last: '2025-12-07' });
    // a month that starts on a Monday starts its grid that day
    assert.deepEqual(gridBounds('2025-12'), { first: '2025-12-01', last: '2026-01-11' });
    const grid = monthGrid('2026-02', [], '2026-02-14', 3);
    assert.equal(grid.weeks.length, 6);
    assert.ok(grid.weeks.every((w) => w.length === 7));
    const days = grid.weeks.flat();
    assert.deepEqual(
      days.filter((d) => d.isToday).map((d) => d.key),
      ['2026-02-14'],
    );
    assert.equal(days.filter((d) => d.inMonth).length, 28);
  });

  it('keeps a multi-day item in one slot across its days, labelled where it starts and where a week starts', () => {
    const grid = monthGrid('2026-01', [item(1, '2026-01-30', '2026-02-02'), item(2, '2026-01-31')], '2000-01-01', 3);
    const day = (key: string) => grid.weeks.flat().find((d) => d.key === key);
    const pieces = ['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02'].map((k) => day(k)?.slots.find((s) => s?.item.id === 1));
    assert.ok(pieces.every((p) => p?.slot === 0));
    assert.deepEqual(
      pieces.map((p) => p?.labelled),
      [true, false, false, true],
    );
    assert.deepEqual(
      pieces.map((p) => [p?.continuesBefore, p?.continuesAfter]),
      [
        [false, true],
        [true, true],
        [true, true],
        [true, false],
      ],
    );
    assert.equal(pieces[0]?.spanInWeek, 3);
    // the one-day item on the 31st goes below the bar
    assert.equal(day('2026-01-31')?.slots[1]?.item.id, 2);
  });

  it('shows at most perDay slots and counts the rest as more, keeping empty slots that align bars', () => {
    const items = [item(1, '2025-11-10', '2025-11-12'), item(2, '2025-11-12'), item(3, '2025-11-12'), item(4, '2025-11-12'), item(5, '2025-11-11')];
    const grid = monthGrid('2025-11', items, '2000-01-01', 3);
    const day = (key: string) => grid.weeks.flat().find((d) => d.key === key);
    assert.deepEqual(
      day('2025-11-12')?.slots.map((s) => s?.item.id),
      [1, 2, 3],
    );
    assert.deepEqual(
      day('2025-11-12')?.hidden.map((s) => s.item.id),
      [4],
    );
    assert.equal(day('2025-11-12')?.more, 1);
    assert.equal(day('2025-11-12')?.total, 4);
    assert.deepEqual(
      day('2025-11-11')?.slots.map((s) => s?.item.id),
      [1, 5],
    );
    // the 10th has only the bar; trailing empty slots are dropped
    assert.deepEqual(
      day('2025-11-10')?.slots.map((s) => s?.item.id),
      [1],
    );
  });

  it('moves a bar whose row is past perDay into a free row of a day that has room, titled there', () => {
    // three bars on the 21st–23rd take rows 0–2; a fourth from the 23rd to the 25th gets row 3 in that week, and
    // on the 24th and 25th rows 0–2 are free
    const items = [
      item(1, '2026-12-21', '2026-12-23'),
      item(2, '2026-12-21', '2026-12-23'),
      item(3, '2026-12-21', '2026-12-23'),
      item(4, '2026-12-23', '2026-12-25'),
    ];
    const grid = monthGrid('2026-12', items, '2000-01-01', 3);
    const day = (key: string) => grid.weeks.flat().find((d) => d.key === key);
    assert.deepEqual(
      day('2026-12-23')?.hidden.map((s) => s.item.id),
      [4],
    );
    assert.equal(day('2026-12-23')?.more, 1);
    for (const key of ['2026-12-24', '2026-12-25']) {
      const d = day(key);
      assert.deepEqual(
        d?.slots.map((s) => [s?.item.id, s?.slot, s?.labelled]),
        [[4, 0, true]],
        key,
      );
      assert.equal(d?.more, 0);
      assert.equal(d?.hidden.length, 0);
    }
  });
});
