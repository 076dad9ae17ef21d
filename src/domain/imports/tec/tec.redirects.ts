/**
 * The redirect map of a site import (FEATURES.md §6.3): every permalink of the old site whose record came
 * across (`/event/<slug>/`, Pro's `/event/<slug>/<date>/`, `/venue/<slug>/`, `/organizer/<slug>/`, category
 * and tag archives) → the record's address here, computed now (a slug changed since still redirects right).
 * Written as an nginx `map` include for the operator's web server; the pages answer the same map themselves.
 */
import type { Storage } from '../../../storage/storage.js';
import type { MapRow } from '../../../storage/stores/import-map.store.js';

/** Our addresses, from the public URL (the caller passes the http layer's Urls). */
export interface Permalinks {
  permalink(type: 'event' | 'venue' | 'organizer', slug: string, id: number): string;
  categoryLink(path: readonly string[]): string;
  tagLink(slug: string): string;
}

export interface Redirect {
  /** The old path below the old home (decoded). */
  readonly from: string;
  readonly to: string;
  readonly kind: string;
}

/** Where a mapped record lives here now (undefined: it is gone, or has no address yet). */
export async function addressOf(storage: Storage, links: Permalinks, kind: string, localId: number): Promise<string | undefined> {
  if (kind === 'event' || kind === 'series') {
    const e = await storage.events.find(localId);
    if (!e || e.status === 'trash' || e.slug === '') return undefined;
    if (e.kind === 'occurrence' && e.seriesId !== null) {
      const series = await storage.events.find(e.seriesId);
      return series && series.slug !== '' ? `${links.permalink('event', series.slug, series.id)}${e.startDate.slice(0, 10)}/` : undefined;
    }
    return links.permalink('event', e.slug, e.id);
  }
  if (kind === 'venue' || kind === 'organizer') {
    const r = await storage.linked(kind).find(localId);
    return r && r.status !== 'trash' && r.slug !== '' ? links.permalink(kind, r.slug, r.id) : undefined;
  }
  if (kind === 'category' || kind === 'tag') {
    const taxonomy = kind === 'category' ? 'tribe_events_cat' : 'post_tag';
    const term = await storage.terms.find(taxonomy, localId);
    if (!term) return undefined;
    if (kind === 'tag') return links.tagLink(term.slug);
    const tree = await storage.terms.tree(taxonomy);
    const path = [term.slug];
    for (let at = term.parentId, seen = new Set([term.id]); at !== 0 && !seen.has(at); at = tree.get(at)?.parentId ?? 0) {
      seen.add(at);
      path.unshift(tree.get(at)?.slug ?? '');
    }
    return links.categoryLink(path);
  }
  return undefined;
}

/** Every redirect of one imported site. */
export async function redirectsOf(storage: Storage, links: Permalinks, sourceKey: string): Promise<Redirect[]> {
  const out: Redirect[] = [];
  const scope = { source: 'tec', sourceKey };
  const rows: MapRow[] = [];
  for (const kind of ['event', 'series', 'venue', 'organizer', 'category', 'tag']) rows.push(...(await storage.importMap.all(scope, kind)));
  for (const row of rows.sort((a, b) => (a.oldPath ?? '').localeCompare(b.oldPath ?? ''))) {
    if (row.oldPath === null) continue;
    const to = await addressOf(storage, links, row.kind, row.localId);
    if (to) out.push({ from: row.oldPath, to, kind: row.kind });
  }
  return out;
}

/**
 * The map as an nginx `map` include on `$uri` (decoded, so the old links' `%e6…` and a browser's raw UTF-8 both
 * match), keys quoted, the old home's path in front of each old path.
 */
export function nginxMap(redirects: readonly Redirect[], oldHome: string, newHome: string): string {
  const base = new URL(`${oldHome}/`).pathname.replace(/\/$/, '');
  const lines = [
    `# Redirects from ${oldHome} to ${newHome} (${redirects.length}), made by \`calendar import tec\`.`,
    '# nginx: map $uri $calendar_redirect { include THIS_FILE; }',
    '#        if ($calendar_redirect) { return 301 $calendar_redirect; }',
    ...redirects.map((r) => `"${`${base}${r.from}`.replace(/["\\]/g, '\\$&')}" ${r.to};`),
  ];
  return `${lines.join('\n')}\n`;
}
