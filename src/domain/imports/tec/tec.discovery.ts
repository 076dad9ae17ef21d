/**
 * Finding a site's events API (FEATURES.md §6.1): from the site URL through the WordPress root index
 * (`/wp-json/`, or `?rest_route=/` when pretty permalinks are off), which also gives the site's time zone and
 * confirms the `tribe/events/v1` namespace; or from the events API root given directly. Each way a site can
 * fail to be importable gets its own message: not reachable, answers HTML, blocks the API, has no such API.
 */
import { findZone } from '../../../time/zones.js';
import { type TecClient, TecHttpError, wpErrorCode } from './tec.client.js';

export const TEC_NAMESPACE = 'tribe/events/v1';

export interface Site {
  /** The events API root (the import map's key): `https://old.example/wp-json/tribe/events/v1`. */
  readonly apiRoot: string;
  /** The site's home URL without a trailing slash (permalinks are relative to it). */
  readonly home: string;
  /** The host of its iCalendar UIDs (`<id>-<start>-<end>@host`). */
  readonly host: string;
  readonly name: string;
  /** The zone of events that have none: the site's `timezone_string`, else its `gmt_offset`. */
  readonly zone: string;
  /** Whether the root index was read (else the zone is our own site's). */
  readonly indexed: boolean;
  /** URLs of `plain` sites put the route in `rest_route`. */
  readonly style: 'pretty' | 'plain';
}

/** An API URL of the site: `path` under the namespace (`/events`), `query` already encoded. */
export function apiUrl(site: Pick<Site, 'apiRoot' | 'style'>, path: string, query = ''): string {
  if (site.style === 'plain') {
    const [base, route] = site.apiRoot.split('?rest_route=');
    return `${base}?rest_route=${route}${path}${query ? `&${query}` : ''}`;
  }
  return `${site.apiRoot}${path}${query ? `?${query}` : ''}`;
}

export class DiscoveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiscoveryError';
  }
}

/**
 * An event's zone as we store it: IANA names as they are, `UTC±N` as `Etc/GMT∓N` (the sign is inverted in the
 * Etc names), `UTC` as UTC. Fractional offsets have no Etc zone: they stay `UTC+5:30`. undefined when not a zone.
 */
export function mapZone(name: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed === '') return undefined;
  const m = /^UTC([+-])(\d{1,2})(?:[.:](\d+))?$/i.exec(trimmed);
  if (m) {
    const hours = Number(m[2]);
    const fraction = m[3] === undefined ? 0 : Number(`0.${m[3]}`);
    if (hours === 0 && fraction === 0) return 'UTC';
    if (fraction === 0 && hours <= 14) return `Etc/GMT${m[1] === '+' ? '-' : '+'}${hours}`;
    const minutes = Math.round(fraction * 60);
    const form = `UTC${m[1]}${hours}:${String(minutes).padStart(2, '0')}`;
    return findZone(form) ? form : undefined;
  }
  if (/^utc$/i.test(trimmed)) return 'UTC';
  return findZone(trimmed) ? trimmed : undefined;
}

/** The site's zone from the root index: `timezone_string`, else `gmt_offset` (hours, maybe fractional). */
function indexZone(index: Record<string, unknown>): string | undefined {
  const named = typeof index.timezone_string === 'string' ? mapZone(index.timezone_string) : undefined;
  if (named) return named;
  const offset = Number(index.gmt_offset);
  if (!Number.isFinite(offset)) return undefined;
  const sign = offset < 0 ? '-' : '+';
  return mapZone(`UTC${sign}${Math.abs(offset)}`);
}

const API_ROOT = /^(.*?)(\/wp-json)?\/+(tribe|calendar)\/+events\/+v1\/*$/;

async function get(client: TecClient, url: string, authenticated = true) {
  try {
    return await client.getJson(url, authenticated);
  } catch (error) {
    if (error instanceof TecHttpError) throw error;
    throw new DiscoveryError(`${url} is not reachable: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function refusal(
  what: string,
  url: string,
  res: { status: number; json: unknown; text: string; headers: Record<string, unknown> },
  credentials = false,
): DiscoveryError {
  // (WordPress answers a wrong, revoked or unknown application password 401: incorrect_password, invalid_username…)
  if (res.status === 401 && credentials) {
    return new DiscoveryError(
      `${url} refuses the credentials given (HTTP 401${wpErrorCode(res.json) ? ` ${wpErrorCode(res.json)}` : ''}): check the application password (LOGIN:PASSWORD of a user there, not revoked)`,
    );
  }
  if (res.status === 401 || res.status === 403) {
    return new DiscoveryError(
      `${url} refuses the ${what} (HTTP ${res.status}${wpErrorCode(res.json) ? ` ${wpErrorCode(res.json)}` : ''}): the site blocks its REST API to this client`,
    );
  }
  if (res.status === 404)
    return new DiscoveryError(`${url} answers 404: the site has no ${what} there (is The Events Calendar active, with its REST API on?)`);
  if (res.json === undefined) {
    const type = String(res.headers['content-type'] ?? 'no content type');
    return new DiscoveryError(`${url} answers ${type.split(';')[0]}, not JSON: not a WordPress REST API (HTTP ${res.status})`);
  }
  return new DiscoveryError(`${url} answers HTTP ${res.status} for the ${what}`);
}

/** Finds the events API of a site URL or API root, with the site's zone and name. */
export async function discover(client: TecClient, input: string, fallbackZone: string): Promise<Site> {
  const given = new URL(input);
  given.hash = '';
  const direct = API_ROOT.exec(given.pathname);
  let home: string;
  let indexUrl: string;
  let style: Site['style'] = 'pretty';
  let apiRoot: string;
  if (direct) {
    home = `${given.origin}${direct[1]}`.replace(/\/+$/, '');
    apiRoot = `${home}${direct[2] ?? ''}/${direct[3]}/events/v1`;
    indexUrl = direct[2] ? `${home}/wp-json/` : '';
  } else {
    home = `${given.origin}${given.pathname}`.replace(/\/+$/, '');
    indexUrl = `${home}/wp-json/`;
    apiRoot = `${home}/wp-json/${TEC_NAMESPACE}`;
  }
  let index: Record<string, unknown> | undefined;
  if (indexUrl !== '') {
    // the root index is public: read without credentials (a security plugin may refuse them there)
    let res = await get(client, indexUrl, false);
    if (res.status === 404 && !direct) {
      // pretty permalinks off: WordPress answers its routes through ?rest_route=
      const plain = await get(client, `${home}/?rest_route=/`, false);
      if (plain.status === 200 && plain.json !== undefined) {
        res = plain;
        style = 'plain';
        apiRoot = `${home}/?rest_route=/${TEC_NAMESPACE}`;
      }
    }
    if (res.status === 200 && res.json !== null && typeof res.json === 'object' && !Array.isArray(res.json)) {
      index = res.json as Record<string, unknown>;
    } else if (!direct) {
      throw refusal('WordPress REST API', indexUrl, res);
    }
  }
  if (index) {
    const namespaces = Array.isArray(index.namespaces) ? index.namespaces.map(String) : [];
    if (!direct && !namespaces.includes(TEC_NAMESPACE)) {
      throw new DiscoveryError(
        `${indexUrl} lists no ${TEC_NAMESPACE} namespace (it has ${namespaces.join(', ') || 'none'}): The Events Calendar is not active there, or its REST API is off`,
      );
    }
    if (typeof index.home === 'string' && /^https?:\/\//.test(index.home)) home = index.home.replace(/\/+$/, '');
  }
  const site: Site = {
    apiRoot,
    home,
    host: new URL(home).hostname,
    name: typeof index?.name === 'string' ? index.name : new URL(home).hostname,
    zone: (index && indexZone(index)) || fallbackZone,
    indexed: index !== undefined,
    style,
  };
  // the namespace itself: a 401/403/404 here is a site that blocks (or disabled) the events API
  const ns = await get(client, apiUrl(site, '/'));
  if (ns.status !== 200 || ns.json === undefined) throw refusal('events API', apiUrl(site, '/'), ns, client.authenticated);
  return site;
}
