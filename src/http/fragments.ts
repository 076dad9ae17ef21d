/**
 * Serialised items of lists, kept per item (issue 17: "per-event serialised fragments cached by (id, version,
 * view) so a list is assembled from fragments"), and single reads of events likewise. Distinct URLs — every visitor's window, page, category, search —
 * list the same events again and again; the response cache keeps whole answers by URL and helps none of them. A
 * fragment is the JSON of one item as one kind of caller sees it in a list, tagged with the data version it was
 * made under; a list reads its page of records as always, and only the items without a current fragment have
 * their embedded data read (venues, organizers, terms, images: on PostgreSQL a round trip) and are serialised.
 *
 * Current means made at the data version of now: any committed write moves it (database triggers, every table;
 * on PostgreSQL read per turn of the event loop, so another process' writes count too) — the rule of the
 * response cache, so a fragment is never older than what a response-cache hit may send. The version is read
 * before the list's records (a fragment made from newer data than its tag is dropped at the next version; one
 * made from older data than its tag could not be). Bounded by bytes (FRAGMENT_CACHE_MB), least recently used
 * first; 0 turns it off. Written by hand: a Map in insertion order is the whole LRU, and the libraries
 * (lru-cache) would add a dependency for less than this file.
 */

import { digestOf, partsEtag } from './conditional.js';

/** An answer body already serialised as JSON (a list assembled from fragments): sent as it is. */
export class RawJson {
  constructor(
    readonly json: string,
    /** The strong ETag of exactly these bytes, when known (a kept single read's): sent when they are sent unchanged. */
    readonly etag?: string,
  ) {}
}

/** What goes with a kept single read's JSON: its headers. */
export interface Validators {
  readonly lastModified: string;
  /** The strong ETag of the JSON's bytes. */
  readonly etag: string;
}

/** A kept item: its JSON and, for a single read, its validators. */
export interface Kept {
  readonly json: string;
  readonly validators?: Validators;
}

interface Fragment extends Kept {
  readonly version: number;
  readonly bytes: number;
  /** The SHA-256 of the JSON, for the list's ETag (partsEtag), made with it. */
  readonly digest?: string;
}

/** An item of a list as its JSON and that JSON's digest (for the list's ETag). */
export interface SerializedItem {
  readonly json: string;
  readonly digest: string;
}

/** What a fragment costs beside its text: the key, the entry and the Map's slot (an estimate). */
const OVERHEAD_BYTES = 96;

export class Fragments {
  private readonly entries = new Map<string, Fragment>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** The fragment of this key made at this version, if kept (a fragment of another version goes). */
  get(key: string, version: number): string | undefined {
    return this.kept(key, version)?.json;
  }

  /** The fragment of this key made at this version with what goes with it, if kept. */
  kept(key: string, version: number): Kept | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.version !== version) {
      if (entry !== undefined) this.drop(key, entry);
      this.misses++;
      return undefined;
    }
    // most recently used last: the first entries are the ones to evict
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return entry;
  }

  set(key: string, version: number, json: string, validators?: Validators, digest?: string): void {
    if (!this.enabled) return;
    const bytes =
      json.length + key.length + OVERHEAD_BYTES + (validators ? validators.lastModified.length + validators.etag.length : 0) + (digest?.length ?? 0);
    if (bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) this.drop(key, old);
    this.entries.set(key, { version, json, validators, bytes, digest });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(k, e);
    }
  }

  /** Counts since the start (tests, a profile). */
  stats(): { entries: number; bytes: number; hits: number; misses: number } {
    return { entries: this.entries.size, bytes: this.bytes, hits: this.hits, misses: this.misses };
  }

  private drop(key: string, entry: Fragment): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  /**
   * The JSON of each item with its digest, in order: kept fragments where current, and for the others their
   * views made together (one read of what they embed) and serialised, then kept. An item whose view is undefined
   * (gone since its key was read) is left out. `version` undefined: none is kept or used.
   */
  async serialize<I, V>(
    items: readonly I[],
    keyOf: (item: I) => string,
    version: number | undefined,
    views: (items: readonly I[]) => Promise<readonly (V | undefined)[]>,
    serialize: (view: V) => unknown,
  ): Promise<SerializedItem[]> {
    const out: (SerializedItem | undefined)[] = new Array(items.length);
    const missing: number[] = [];
    for (let i = 0; i < items.length; i++) {
      const key = keyOf(items[i]);
      const kept = version === undefined ? undefined : this.kept(key, version);
      if (kept === undefined) missing.push(i);
      else out[i] = { json: kept.json, digest: (kept as Fragment).digest ?? digestOf(kept.json) };
    }
    if (missing.length === 0) return out as SerializedItem[];
    const made = await views(missing.map((i) => items[i]));
    let gone = false;
    for (let j = 0; j < missing.length; j++) {
      const i = missing[j];
      const view = made[j];
      if (view === undefined) {
        gone = true;
        continue;
      }
      const json = JSON.stringify(serialize(view));
      const digest = digestOf(json);
      out[i] = { json, digest };
      if (version !== undefined) this.set(keyOf(items[i]), version, json, undefined, digest);
    }
    return gone ? out.filter((item): item is SerializedItem => item !== undefined) : (out as SerializedItem[]);
  }
}

/**
 * A body whose first key holds a list of items already serialised: `{"<key>":[<items>],…rest}` — the bytes
 * JSON.stringify gives the object with those items in that key, first — with its ETag made of the items' digests.
 */
export function withItemsFirst(key: string, items: readonly SerializedItem[], rest: Readonly<Record<string, unknown>>): RawJson {
  const tail = JSON.stringify(rest);
  const head = `{${JSON.stringify(key)}:[`;
  const end = `]${tail === '{}' ? '}' : `,${tail.slice(1)}`}`;
  let json = head;
  for (let i = 0; i < items.length; i++) json += i === 0 ? items[i].json : `,${items[i].json}`;
  json += end;
  return new RawJson(
    json,
    partsEtag(
      [head, end],
      items.map((item) => item.digest),
    ),
  );
}
