/**
 * A first pass over an .ics text that ical.js does not make: is it iCalendar at all (a 415 before any job is
 * made), are its BEGIN/END blocks balanced (a malformed file fails with the line that is wrong, which ical.js'
 * errors do not carry), and on which line does each VEVENT start (item errors name it).
 */

/** Why a text is not iCalendar, or is malformed: with the (1-based) physical line when one is to blame. */
export class IcsFormatError extends Error {
  constructor(
    readonly line: number | null,
    readonly reason: string,
  ) {
    super(line === null ? reason : `line ${line}: ${reason}`);
    this.name = 'IcsFormatError';
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of an .ics file sent or read here (a BOM dropped), or undefined when its bytes are not UTF-8
 * (RFC 5545 §3.1.4): decoded leniently, every byte of another charset (a Windows-1252 é) would be imported as
 * U+FFFD without a word.
 */
export function icsText(bytes: Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return undefined;
  }
}

/** Why icsText refused a file. */
export const NOT_UTF8 = 'it is not UTF-8 text (RFC 5545 §3.1.4): convert it to UTF-8 and send it again';

/** Whether a text looks like iCalendar: its first content line is BEGIN:VCALENDAR (a BOM and blank lines aside). */
export function looksLikeICalendar(text: string): boolean {
  return /^\uFEFF?\s*BEGIN:VCALENDAR\s*(\r\n|\n|\r)/i.test(text.slice(0, 200));
}

export interface IcsOutline {
  /** The physical line of each `BEGIN:VEVENT`, in the order of the file. */
  readonly veventLines: readonly number[];
  /** The physical line of each one's `END:VEVENT` (VEVENTs do not nest). */
  readonly veventEnds: readonly number[];
  /** The text's physical lines (line n at n − 1), split once for whoever reads them after. */
  readonly lines: readonly string[];
}

/** Checks the block structure; throws IcsFormatError naming the first line that is wrong. */
export function outline(text: string): IcsOutline {
  if (!looksLikeICalendar(text)) throw new IcsFormatError(1, 'the text is not iCalendar (it must start with BEGIN:VCALENDAR)');
  const lines = text.split(/\r\n|\n|\r/);
  const stack: { name: string; line: number }[] = [];
  const veventLines: number[] = [];
  const veventEnds: number[] = [];
  let closed = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const n = i + 1;
    // folded continuation lines (RFC 5545 §3.1) and blank lines carry no structure
    if (raw === '' || raw.startsWith(' ') || raw.startsWith('\t')) continue;
    if (closed) {
      if (raw.trim() === '') continue;
      throw new IcsFormatError(n, 'content after END:VCALENDAR');
    }
    const colon = raw.indexOf(':');
    if (colon <= 0) throw new IcsFormatError(n, `not a content line (NAME:VALUE): "${raw.slice(0, 60)}"`);
    const name = raw.slice(0, colon).split(';')[0].toUpperCase();
    const value = raw
      .slice(colon + 1)
      .trim()
      .toUpperCase();
    if (name === 'BEGIN') {
      if (value === 'VEVENT') veventLines.push(n);
      if (value === 'VEVENT' && stack.some((b) => b.name === 'VEVENT')) {
        const open = stack.find((b) => b.name === 'VEVENT') as { line: number };
        throw new IcsFormatError(open.line, 'BEGIN:VEVENT is never closed (END:VEVENT missing before the next BEGIN:VEVENT)');
      }
      stack.push({ name: value, line: n });
    } else if (name === 'END') {
      const open = stack.pop();
      if (!open) throw new IcsFormatError(n, `END:${value} without a BEGIN`);
      if (open.name !== value) throw new IcsFormatError(open.line, `BEGIN:${open.name} is never closed (line ${n} ends ${value})`);
      if (value === 'VEVENT') veventEnds.push(n);
      if (stack.length === 0) closed = true;
    } else if (stack.length === 0) {
      throw new IcsFormatError(n, `${name} outside BEGIN:VCALENDAR`);
    }
  }
  if (stack.length > 0) {
    const open = stack[stack.length - 1];
    throw new IcsFormatError(open.line, `BEGIN:${open.name} is never closed (the file ends first)`);
  }
  return { veventLines, veventEnds, lines };
}
