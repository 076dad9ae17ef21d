import type { Urls } from '../http/urls.js';

/**
 * `global_id` and `global_id_lineage` of a post (CONTRACT.md §2): ours, or for a post imported from another
 * site (FEATURES.md §6.3) the remote global id kept, with the remote's lineage and ours appended, so that a
 * site pulling from us with Event Aggregator recognises the records it already has from the first site.
 */
export function globalIds(
  record: { readonly id: number; readonly globalIdLineage?: readonly string[] | null },
  urls: Urls,
): { global_id: string; global_id_lineage: string[] } {
  const own = urls.globalId(record.id);
  const remote = record.globalIdLineage;
  if (!remote || remote.length === 0) return { global_id: own, global_id_lineage: [own] };
  return { global_id: remote[0], global_id_lineage: [...remote.filter((g) => g !== own), own] };
}
