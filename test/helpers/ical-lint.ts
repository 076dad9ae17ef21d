/**
 * A small RFC 5545 linter for the feeds the tests fetch (FEATURES.md §3.3: no network validator in CI): CRLF
 * after every line including the last, no line over 75 octets, no character split by folding, no control
 * characters, balanced components, the properties RFC 5545 requires, one VTIMEZONE for each TZID used and no
 * VTIMEZONE twice, DTEND after DTSTART in the same value type. Returns the problems found (empty: clean).
 */
import ICAL from 'ical.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function lintIcal(text: string): string[] {
  const problems: string[] = [];
  if (!text.endsWith('\r\n')) problems.push('the stream does not end with CRLF');
  if (/\r(?!\n)|(?<!\r)\n/.test(text)) problems.push('a bare CR or LF');
  const physical = text.split('\r\n').slice(0, -1);
  physical.forEach((line, i) => {
    if (Buffer.byteLength(line, 'utf8') > 75) problems.push(`line ${i + 1} has ${Buffer.byteLength(line, 'utf8')} octets`);
    if (LONE_SURROGATE.test(line) || line.includes('\ufffd')) problems.push(`line ${i + 1} splits a character`);
    if (CONTROL.test(line)) problems.push(`line ${i + 1} has a control character`);
  });
  // unfold (RFC 5545 §3.1), then look at content lines
  const lines = text
    .replace(/\r\n[ \t]/g, '')
    .split('\r\n')
    .slice(0, -1);
  const stack: string[] = [];
  const tzidsUsed = new Set<string>();
  const tzidsDefined: string[] = [];
  let current: Map<string, string[]> | undefined;
  for (const line of lines) {
    const name = line.split(/[;:]/)[0].toUpperCase();
    if (name === 'BEGIN') {
      const component = line.slice(6);
      stack.push(component);
      if (component === 'VEVENT') current = new Map();
      continue;
    }
    if (name === 'END') {
      const component = line.slice(4);
      if (stack.pop() !== component) problems.push(`END:${component} closes nothing open`);
      if (component === 'VEVENT' && current) {
        for (const required of ['UID', 'DTSTAMP', 'DTSTART']) if (!current.has(required)) problems.push(`a VEVENT without ${required}`);
        const start = current.get('DTSTART')?.[0];
        const end = current.get('DTEND')?.[0];
        if (start && end) {
          const isDate = (l: string) => /VALUE=DATE[:;]/.test(l);
          if (isDate(start) !== isDate(end)) problems.push(`DTSTART and DTEND differ in value type: ${start} / ${end}`);
          if ((end.split(':').at(-1) as string) <= (start.split(':').at(-1) as string)) problems.push(`DTEND not after DTSTART: ${start} / ${end}`);
        }
        current = undefined;
      }
      continue;
    }
    const tzid = /;TZID=("[^"]*"|[^;:]*)/.exec(line)?.[1];
    if (tzid) tzidsUsed.add(tzid.replace(/"/g, ''));
    if (stack.at(-1) === 'VTIMEZONE' && name === 'TZID') tzidsDefined.push(line.slice(5));
    if (current && stack.at(-1) === 'VEVENT') current.set(name, [...(current.get(name) ?? []), line]);
  }
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(', ')}`);
  for (const tzid of tzidsUsed) if (!tzidsDefined.includes(tzid)) problems.push(`TZID ${tzid} has no VTIMEZONE`);
  if (new Set(tzidsDefined).size !== tzidsDefined.length) problems.push(`a VTIMEZONE twice: ${tzidsDefined.join(', ')}`);
  if (!lines.includes('VERSION:2.0')) problems.push('no VERSION:2.0');
  if (!lines.some((l) => l.startsWith('PRODID:'))) problems.push('no PRODID');
  try {
    ICAL.parse(text);
  } catch (error) {
    problems.push(`ical.js cannot parse it: ${(error as Error).message}`);
  }
  return problems;
}

/** The stream parsed by ical.js, its zones registered (so that times convert with the feed's own VTIMEZONEs). */
export function parseIcal(text: string): ICAL.Component {
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const vtimezone of calendar.getAllSubcomponents('vtimezone')) {
    const zone = new ICAL.Timezone(vtimezone);
    if (!ICAL.TimezoneService.has(zone.tzid)) ICAL.TimezoneService.register(zone);
  }
  return calendar;
}
