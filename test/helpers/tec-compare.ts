/**
 * Comparing what our API answers for imported records with what the original answered for them: every key
 * both objects have, with the documented differences spelt out (ids, authors and modification dates are ours;
 * links to other records compare by slug; a zone `UTC±N` is `Etc/GMT∓N` here; slugs are decoded; a website the
 * original answered as the permalink is our permalink). Returns the differences, so an assertion can show them.
 */

const OURS = new Set([
  'id',
  'author',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'json_ld',
  'global_id_lineage',
  'custom_fields',
  'urls',
  'meta',
]);

const decode = (s: unknown) => {
  try {
    return decodeURIComponent(String(s));
  } catch {
    return String(s);
  }
};

const slugs = (v: unknown) => (Array.isArray(v) ? v.map((t: any) => decode(t.slug)) : []).sort();

/** `UTC±N` → `Etc/GMT∓N`, as the importer maps zones. */
export function mappedZone(zone: string): string {
  const m = /^UTC([+-])(\d{1,2})$/.exec(zone);
  return m ? (Number(m[2]) === 0 ? 'UTC' : `Etc/GMT${m[1] === '+' ? '-' : '+'}${Number(m[2])}`) : zone;
}

export function compareEvent(remote: any, local: any, skip: readonly string[] = []): string[] {
  const diffs: string[] = [];
  const out = (key: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) diffs.push(`${remote.id} ${key}: remote ${JSON.stringify(a)} ours ${JSON.stringify(b)}`);
  };
  for (const key of Object.keys(remote)) {
    if (OURS.has(key) || skip.includes(key) || !(key in local)) continue;
    const a = remote[key];
    const b = local[key];
    switch (key) {
      case 'slug':
        out(key, decode(a), decode(b));
        break;
      case 'categories':
      case 'tags':
        out(key, slugs(a), slugs(b));
        break;
      case 'venue':
        out(key, Array.isArray(a) ? null : decode(a.slug), Array.isArray(b) ? null : decode(b.slug));
        break;
      case 'organizer':
        out(
          key,
          (a as any[]).map((o) => decode(o.slug)),
          (b as any[]).map((o) => decode(o.slug)),
        );
        break;
      case 'image':
        out(key, a ? [a.url, a.width, a.height] : false, b ? [b.url, b.width, b.height] : false);
        break;
      case 'timezone':
        out(key, mappedZone(a), b);
        break;
      case 'timezone_abbr':
        if (!/^UTC[+-]/.test(remote.timezone)) out(key, a, b);
        break;
      case 'cost_details': {
        // (values compared without case: the original slugifies a word cost, `Free` → `free`; key order aside)
        const norm = (c: any) => ({
          symbol: c.currency_symbol,
          code: c.currency_code,
          position: c.currency_position,
          values: c.values.map((v: string) => v.toLowerCase()),
        });
        out(key, norm(a), norm(b));
        break;
      }
      case 'website':
        out(key, a === remote.url ? local.url : a, b);
        break;
      case 'start_date_details':
      case 'end_date_details':
      case 'utc_start_date_details':
      case 'utc_end_date_details':
        break;
      default:
        out(key, a, b);
    }
  }
  return diffs;
}

/** Venues, organizers and terms: every key both have (links by slug, parents by slug). */
export function compareFlat(remote: any, local: any, skip: readonly string[] = []): string[] {
  const diffs: string[] = [];
  for (const key of Object.keys(remote)) {
    if (OURS.has(key) || skip.includes(key)) continue;
    let a = remote[key];
    let b = local[key];
    if (key === 'slug') [a, b] = [decode(a), decode(b)];
    if (key === 'image') [a, b] = [a ? a.url : false, b ? b.url : false];
    if (JSON.stringify(a) !== JSON.stringify(b)) diffs.push(`${remote.id} ${key}: remote ${JSON.stringify(a)} ours ${JSON.stringify(b)}`);
  }
  // keys the original dropped as empty must be empty here too
  for (const key of Object.keys(local)) {
    if (OURS.has(key) || skip.includes(key) || key in remote) continue;
    if (local[key] !== '' && local[key] !== false && !(Array.isArray(local[key]) && local[key].length === 0)) {
      diffs.push(`${remote.id} ${key}: remote has none, ours ${JSON.stringify(local[key])}`);
    }
  }
  return diffs;
}

/**
 * A recorded JSON-LD object against ours, key by key and in key order: the original's site and ours are one host
 * (`site`: where the import read it, and our PUBLIC_URL); an organizer's e-mail compares decoded (WordPress'
 * antispambot writes random characters as entities on every request).
 */
export function compareJsonLd(name: string, remote: unknown, local: unknown, site: string): string[] {
  const out: string[] = [];
  const host = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll(site, 'HOST').replaceAll('http://calendar.test', 'HOST'));
  const decodeEntities = (v: string) => v.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));
  const walk = (path: string, a: any, b: any) => {
    if (a && b && typeof a === 'object' && typeof b === 'object') {
      if (Object.keys(a).join() !== Object.keys(b).join()) out.push(`${path} keys: ${Object.keys(a).join()} | ours ${Object.keys(b).join()}`);
      for (const k of Object.keys(a)) if (k in b) walk(`${path}.${k}`, a[k], b[k]);
      return;
    }
    const x = path.endsWith('.email') && typeof a === 'string' ? decodeEntities(a) : a;
    if (JSON.stringify(x) !== JSON.stringify(b)) out.push(`${path}: ${JSON.stringify(x)} | ours ${JSON.stringify(b)}`);
  };
  walk(name, host(remote), host(local));
  return out;
}
