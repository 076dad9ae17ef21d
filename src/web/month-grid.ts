/**
 * The month view's grid (FEATURES.md §5.3): six weeks of seven days from the Monday on or before the 1st. An
 * event that covers several days is drawn as a bar: it keeps one row ("slot") across every day it covers in a
 * week, so its pieces line up; a day shows at most `perDay` slots and counts the rest as "+N more".
 */
import { addDays, dayParts, weekdayIndex } from './format.js';

export interface GridItem {
  readonly id: number;
  /** `YYYY-MM-DD` of the first and last day the item covers. */
  readonly firstDay: string;
  readonly lastDay: string;
}

export interface GridEntry<T extends GridItem> {
  readonly item: T;
  readonly slot: number;
  /** The item began before this day / goes on after it (within or beyond the week). */
  readonly continuesBefore: boolean;
  readonly continuesAfter: boolean;
  /** Where the item's label goes: its first day, or the first day of a week it runs into. */
  readonly labelled: boolean;
  /** Days from this one to the end of the item within the week (for a bar's width on wide screens). */
  readonly spanInWeek: number;
}

export interface GridDay<T extends GridItem> {
  readonly key: string;
  readonly day: number;
  readonly inMonth: boolean;
  readonly isToday: boolean;
  /** Slots 0…shown-1; null where the slot is empty on this day (another day of the week uses it). */
  readonly slots: readonly (GridEntry<T> | null)[];
  /** Entries beyond `perDay` slots, in slot order (written to the page, hidden, behind "+N more"). */
  readonly hidden: readonly GridEntry<T>[];
  readonly more: number;
  /** Every item on this day, shown or not. */
  readonly total: number;
}

export interface MonthGrid<T extends GridItem> {
  readonly first: string;
  readonly last: string;
  readonly weeks: readonly (readonly GridDay<T>[])[];
}

/** The first and last day of the grid of a month (`YYYY-MM`). */
export function gridBounds(month: string): { first: string; last: string } {
  const first1 = `${month}-01`;
  const first = addDays(first1, -weekdayIndex(dayParts(first1)));
  return { first, last: addDays(first, 41) };
}

/**
 * Lays out `items` (in the order they should stack: the caller puts multi-day and all-day items first, then by
 * start) on the grid of `month`.
 */
export function monthGrid<T extends GridItem>(month: string, items: readonly T[], today: string, perDay: number): MonthGrid<T> {
  const { first, last } = gridBounds(month);
  const weeks: GridDay<T>[][] = [];
  for (let w = 0; w < 6; w++) {
    const weekStart = addDays(first, w * 7);
    const weekEnd = addDays(weekStart, 6);
    const days = Array.from({ length: 7 }, (_, i) => addDays(weekStart, i));
    // slot occupancy per weekday, and what each day holds
    const used: boolean[][] = days.map(() => []);
    const placed: GridEntry<T>[][] = days.map(() => []);
    for (const item of items) {
      if (item.firstDay > weekEnd || item.lastDay < weekStart) continue;
      const from = item.firstDay < weekStart ? 0 : days.indexOf(item.firstDay);
      const to = item.lastDay > weekEnd ? 6 : days.indexOf(item.lastDay);
      let slot = 0;
      while (used.slice(from, to + 1).some((u) => u[slot])) slot++;
      for (let d = from; d <= to; d++) {
        used[d][slot] = true;
        placed[d].push({
          item,
          slot,
          continuesBefore: days[d] > item.firstDay,
          continuesAfter: days[d] < item.lastDay,
          labelled: d === from,
          spanInWeek: to - d + 1,
        });
      }
    }
    weeks.push(
      days.map((key, d) => {
        const entries = placed[d];
        const shown = Math.min(perDay, used[d].length);
        const slots: (GridEntry<T> | null)[] = Array.from({ length: shown }, () => null);
        const hidden: GridEntry<T>[] = [];
        for (const entry of entries) {
          if (entry.slot < perDay) slots[entry.slot] = entry;
          else hidden.push(entry);
        }
        hidden.sort((a, b) => a.slot - b.slot);
        // a bar keeps the row it got on its first day in the week; where that row is beyond perDay on a day whose
        // shown rows are free, it moves up into one there, with its title (not aligned with its other days, but
        // seen: a day with room never hides an event behind "+N more")
        for (let free = slots.indexOf(null); free !== -1 && hidden.length > 0; free = slots.indexOf(null)) {
          const entry = hidden.shift() as GridEntry<T>;
          slots[free] = { ...entry, slot: free, labelled: true, spanInWeek: 1 };
        }
        while (slots.length > 0 && slots[slots.length - 1] === null) slots.pop();
        return {
          key,
          day: dayParts(key).day,
          inMonth: key.startsWith(month),
          isToday: key === today,
          slots,
          hidden,
          more: hidden.length,
          total: entries.length,
        };
      }),
    );
  }
  return { first, last, weeks };
}
