/**
 * Reading the HTML pages in tests: parse a document (htmlparser2, as the browser would build the tree) and find
 * elements by a predicate, by id or by class, and read their text.
 */
import type { Document, Element } from 'domhandler';
import { findAll, getAttributeValue, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';

export type { Element };

export function parseHtml(html: string): Document {
  return parseDocument(html, { decodeEntities: true });
}

export function all(root: Document | Element, test: (e: Element) => boolean): Element[] {
  return findAll(test, [root]);
}

export function attr(e: Element, name: string): string | undefined {
  return getAttributeValue(e, name);
}

export function hasClass(e: Element, name: string): boolean {
  return (attr(e, 'class') ?? '').split(/\s+/).includes(name);
}

export function byClass(root: Document | Element, name: string): Element[] {
  return all(root, (e) => hasClass(e, name));
}

export function byTag(root: Document | Element, tag: string): Element[] {
  return all(root, (e) => e.name === tag);
}

export function text(e: Element | Document): string {
  return textContent(e).replace(/\s+/g, ' ').trim();
}

/** The month grid's cell of a day. */
export function dayCell(doc: Document, day: string): Element {
  const cell = all(doc, (e) => e.name === 'td' && attr(e, 'data-date') === day)[0];
  if (!cell) throw new Error(`no cell for ${day}`);
  return cell;
}

/** Ids of the events written in an element (`data-event-id`). */
export function eventIds(root: Document | Element): number[] {
  return all(root, (e) => attr(e, 'data-event-id') !== undefined).map((e) => Number(attr(e, 'data-event-id')));
}
