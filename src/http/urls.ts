/**
 * Every URL the API emits is built here, from `PUBLIC_URL`: REST URLs under the namespace, public permalinks,
 * and the host part of global ids.
 */
export const NAMESPACE = 'calendar/events/v1';

export type QueryPairs = readonly (readonly [string, string | number])[];

/**
 * A slug in a permalink, percent-encoded as WordPress writes non-ASCII slugs (utf8_uri_encode: lower-case hex,
 * `%e6%9d%b1…`, as recorded on the original), so a permalink is the original's byte for byte.
 */
const inPath = (slug: string) => encodeURIComponent(slug).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** The original's post types, as its query-form permalinks name them. */
const POST_TYPE = { event: 'tribe_events', venue: 'tribe_venue', organizer: 'tribe_organizer' } as const;
/** Statuses whose posts WordPress links in the query form (get_post_permalink's `$draft_or_pending`). */
const UNPUBLISHED_LINK = new Set(['draft', 'pending', 'auto-draft', 'future']);

export class Urls {
  /** `PUBLIC_URL` without a trailing slash. */
  readonly home: string;
  /** `{home}/calendar/events/v1` */
  readonly namespace: string;
  /** Host and path of the home URL, as global ids carry it (`example.org?id=12`). */
  readonly globalIdOrigin: string;

  constructor(publicUrl: string) {
    this.home = publicUrl.replace(/\/+$/, '');
    this.namespace = `${this.home}/${NAMESPACE}`;
    const url = new URL(this.home);
    // the original's Global_ID origin: the host without its port, then the path
    this.globalIdOrigin = `${url.hostname}${url.pathname.replace(/\/+$/, '')}`;
  }

  rest(path: string): string {
    return `${this.namespace}${path}`;
  }

  /** `base?k=v&…` with keys and values percent-encoded; no `?` when there are no pairs. */
  static withQuery(base: string, pairs: QueryPairs): string {
    if (pairs.length === 0) return base;
    return `${base}?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}`;
  }

  /**
   * WordPress' permalink of a post (get_post_permalink): drafts, pending and scheduled posts have none of their
   * own yet — `/?post_type=<type>&p=<id>` — and a post without a slug `/?p=<id>`.
   */
  permalink(type: 'event' | 'venue' | 'organizer', slug: string, id: number, status?: string): string {
    if (status !== undefined && UNPUBLISHED_LINK.has(status)) return `${this.home}/?post_type=${POST_TYPE[type]}&p=${id}`;
    if (slug === '') return `${this.home}/?p=${id}`;
    return `${this.home}/${type}/${inPath(slug)}/`;
  }

  categoryLink(path: readonly string[]): string {
    return `${this.home}/events/category/${path.map(inPath).join('/')}/`;
  }

  tagLink(slug: string): string {
    return `${this.home}/tag/${inPath(slug)}/`;
  }

  globalId(id: number): string {
    return `${this.globalIdOrigin}?id=${id}`;
  }
}
