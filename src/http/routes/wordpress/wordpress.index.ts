/**
 * WordPress' root index, `GET /wp-json/` (WordPress `WP_REST_Server::get_index`, CONTRACT.md §1.1), as a site
 * running the original shows it (recorded: `fixtures/tec-6.17/anonymous/index/wp-json-root.json`). Importers
 * and clients read the site's time zone here and look for `tribe/events/v1` in `namespaces` to confirm the site
 * runs the original (FEATURES.md §6.1).
 */
import { getZone } from '../../../time/zones.js';
import type { RouteRegistry } from '../../route.js';
import { NAMESPACE, type Urls } from '../../urls.js';
import { describeRoutes, type RouteEntry } from '../namespace/namespace.index.js';
import { WP_NAMESPACE, WP_ROOT } from './wordpress.paths.js';

export interface SiteFacts {
  readonly name: string;
  readonly description: string;
  /** `SITE_TIMEZONE`: an IANA name, `UTC` or `UTC±N`. */
  readonly timezone: string;
}

/**
 * WordPress' pair of options for a zone: a named zone is `timezone_string` with `gmt_offset` its offset now
 * (WordPress derives it the same way, so it follows daylight saving time); a manual offset (`UTC+2`) is
 * `gmt_offset` alone with an empty `timezone_string`. Offsets are hours, `5.5` or `5.75` for half and quarter
 * hours.
 */
export function wordpressTimezone(zoneName: string, nowMs: number): { gmt_offset: number; timezone_string: string } {
  const minutes = getZone(zoneName).offsetAt(nowMs);
  // `+ 0` turns a negative zero (`UTC-0`) into 0
  const gmtOffset = Math.round((minutes / 60) * 100) / 100 + 0;
  if (/^UTC[+-]/i.test(zoneName)) return { gmt_offset: gmtOffset, timezone_string: '' };
  return { gmt_offset: gmtOffset, timezone_string: zoneName.toUpperCase() === 'UTC' ? 'UTC' : zoneName };
}

/** The root route itself, as WordPress lists it (and answers OPTIONS on it). */
export function rootRouteEntry(urls: Urls): RouteEntry {
  return {
    namespace: '',
    methods: ['GET'],
    endpoints: [{ methods: ['GET'], args: { context: { default: 'view', required: false } } }],
    _links: { self: [{ href: `${urls.home}${WP_ROOT}/` }] },
  };
}

/**
 * The routes as this root serves them: WordPress clients build a route's URL as root + key, so under
 * `/wp-json` the keys are the original's (`/tribe/events/v1/events`), and each entry names that namespace.
 * Their `_links.self` stay the canonical URLs, like every URL the API emits (DECISIONS.md): they answer the
 * same. Generated from the registry through the namespace index, so both always list the same routes.
 */
export function wordpressRoutes(registry: RouteRegistry, urls: Urls): Record<string, RouteEntry> {
  const routes: Record<string, RouteEntry> = { '/': rootRouteEntry(urls) };
  const canonicalPrefix = `/${NAMESPACE}`;
  for (const [key, entry] of Object.entries(describeRoutes(registry, urls))) {
    routes[`/${WP_NAMESPACE}${key.slice(canonicalPrefix.length)}`] = { ...entry, namespace: WP_NAMESPACE };
  }
  return routes;
}

export function wordpressRootIndex(site: SiteFacts, urls: Urls, routes: Record<string, RouteEntry>, nowMs: number) {
  return {
    name: site.name,
    description: site.description,
    url: urls.home,
    home: urls.home,
    ...wordpressTimezone(site.timezone, nowMs),
    // WordPress' reading settings: no static front page, no posts page
    page_for_posts: 0,
    page_on_front: 0,
    show_on_front: 'posts',
    // Only the original's namespace: a WordPress client resolves each listed namespace under this root
    // (`/wp-json/{namespace}`), and `calendar/events/v1` is served at the site root, not under `/wp-json`; the
    // canonical namespace has its own root index at `GET /`.
    namespaces: [WP_NAMESPACE],
    // Clients authenticate as with WordPress application passwords (HTTP Basic, login and application
    // password), so the method is announced. WordPress adds the URL of its page where a user approves an
    // application (`authorization`); there is no such page here (application passwords are made with the
    // `calendar users` command), so no endpoint is offered rather than one that would 404.
    authentication: { 'application-passwords': { endpoints: {} } },
    routes,
    // no logo or icon (WordPress' 0 and '' mean none)
    site_logo: 0,
    site_icon: 0,
    site_icon_url: '',
    _links: { help: [{ href: `${urls.namespace}/doc` }] },
  };
}
