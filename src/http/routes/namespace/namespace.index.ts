/**
 * The namespace index (`GET /calendar/events/v1`, CONTRACT.md §1.1) and the root index (`GET /`), generated
 * from the registry so they list every route as it is actually registered.
 */

import { type RouteRegistry, wpPattern } from '../../route.js';
import { publicSchema } from '../../schema-keywords.js';
import { NAMESPACE, type Urls } from '../../urls.js';

export interface RouteEntry {
  namespace: string;
  methods: string[];
  endpoints: { methods: string[]; args: Record<string, Record<string, unknown>> }[];
  _links?: { self: { href: string }[] };
}

export function describeRoutes(registry: RouteRegistry, urls: Urls, onlyPath?: string): Record<string, RouteEntry> {
  const routes: Record<string, RouteEntry> = {};
  for (const spec of registry.specs) {
    if (onlyPath !== undefined && spec.path !== onlyPath) continue;
    const key = `/${NAMESPACE}${wpPattern(spec.path)}`;
    let entry = routes[key];
    if (!entry) {
      entry = { namespace: NAMESPACE, methods: [], endpoints: [] };
      // (the link is the address, not the route's pattern: `events.ics`, not `events\.ics`)
      if (!spec.path.includes(':')) entry._links = { self: [{ href: `${urls.home}/${NAMESPACE}${spec.path}` }] };
      routes[key] = entry;
    }
    const args: Record<string, Record<string, unknown>> = {};
    for (const [name, a] of Object.entries(spec.args)) args[name] = { ...publicSchema(a.schema), required: a.required === true };
    entry.methods.push(...spec.methods);
    entry.endpoints.push({ methods: [...spec.methods], args });
  }
  // `_links` goes last, as WordPress emits it
  for (const entry of Object.values(routes)) {
    if (entry._links) {
      const links = entry._links;
      delete entry._links;
      entry._links = links;
    }
  }
  return routes;
}
