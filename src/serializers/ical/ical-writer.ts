/**
 * The lines of an iCalendar stream (RFC 5545 §3.1): properties with escaped values and parameters, folded at
 * 75 octets without splitting a character, CRLF after every line including the last.
 *
 * Written here rather than taken from ical-generator (the library the issue proposed), measured 2026-11-24:
 * its folding allocates a TextEncoder per character, so a 5,000-event feed took 6.7 s (target: under 1 s), 85 %
 * of it folding; it writes an all-day RECURRENCE-ID without VALUE=DATE; it reads a JS Date's fields in the
 * server's zone when an event has one; and it escapes quotes in parameters with a backslash instead of RFC 6868's
 * caret. What is hard to get right — the VTIMEZONE blocks — still comes from a library (timezones-ical-library).
 */

// every control character but HTAB: none may reach a feed (a CR or LF would start a property of its own)
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
const NEWLINES = /\r\n|\r|\n/g;

/** A TEXT value (§3.3.11): backslash, semicolon and comma escaped, newlines as `\n`, other controls dropped. */
export function escapeText(value: string): string {
  return value
    .replace(NEWLINES, '\n')
    .replace(CONTROL, '')
    .replace(/[\\;,]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n');
}

/** A value that is not TEXT (a URI, a date, a code): controls dropped, nothing escaped. */
export function cleanValue(value: string): string {
  return value.replace(NEWLINES, ' ').replace(CONTROL, '');
}

/**
 * A parameter value (§3.2, RFC 6868): `^`, newline and `"` caret-encoded, other controls dropped, quoted when
 * it holds `:`, `;` or `,`.
 */
export function paramValue(value: string): string {
  const encoded = value.replace(NEWLINES, '\n').replace(CONTROL, '').replace(/\^/g, '^^').replace(/\n/g, '^n').replace(/"/g, "^'");
  return /[:;,]/.test(encoded) ? `"${encoded}"` : encoded;
}

const utf8Length = (codePoint: number) => (codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4);

/** One content line folded (§3.1): at most 75 octets per line, continuation lines starting with a space. */
export function fold(line: string): string {
  if (line.length <= 75 && !/[\u0080-\uffff]/.test(line)) return line;
  let out = '';
  let octets = 0;
  let start = 0;
  let i = 0;
  while (i < line.length) {
    const cp = line.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    const size = utf8Length(cp);
    // the first line holds 75 octets; a continuation line 74 after its leading space
    if (octets + size > (start === 0 ? 75 : 74)) {
      out += `${start === 0 ? '' : '\r\n '}${line.slice(start, i)}`;
      start = i;
      octets = 0;
    }
    octets += size;
    i += width;
  }
  return `${out}${start === 0 ? '' : '\r\n '}${line.slice(start)}`;
}

export type Params = Readonly<Record<string, string | undefined>>;

export class IcalWriter {
  private readonly lines: string[] = [];

  /** A property whose value is already in its final form (dates, numbers, codes, escaped text). */
  raw(name: string, value: string, params: Params = {}): this {
    let head = name;
    for (const [key, v] of Object.entries(params)) if (v !== undefined) head += `;${key}=${paramValue(v)}`;
    this.lines.push(fold(`${head}:${value}`));
    return this;
  }

  /** A TEXT property; nothing is written for an empty value. */
  text(name: string, value: string | undefined, params: Params = {}): this {
    if (value === undefined || value === '') return this;
    return this.raw(name, escapeText(value), params);
  }

  /** A URI or other non-TEXT property; nothing is written for an empty value. */
  value(name: string, value: string | undefined, params: Params = {}): this {
    if (value === undefined || value === '') return this;
    return this.raw(name, cleanValue(value), params);
  }

  /** Lines made elsewhere (a VTIMEZONE block), CRLF- or LF-separated; folded again to be safe. */
  block(text: string): this {
    for (const line of text.split(NEWLINES)) if (line !== '') this.lines.push(fold(line));
    return this;
  }

  begin(component: string): this {
    this.lines.push(`BEGIN:${component}`);
    return this;
  }

  end(component: string): this {
    this.lines.push(`END:${component}`);
    return this;
  }

  toString(): string {
    return `${this.lines.join('\r\n')}\r\n`;
  }
}
