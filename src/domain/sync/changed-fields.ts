/**
 * The names a change log row gives the fields an update changed (a webhook's `changed`, FEATURES.md §4.3):
 * the v1 keys of the object, found by comparing a record before the write with what the write stores. Record
 * keys are the domain's (camelCase); most become their wire key in snake_case, these differ, and bookkeeping
 * (modification dates, versions, the trash's memory) is no field a client changed.
 */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  content: 'description',
  authorId: 'author',
  imageId: 'image',
  startUtc: 'utc_start_date',
  endUtc: 'utc_end_date',
  venueId: 'venue',
  hideFromListings: 'hide_from_listings',
  stateProvince: 'stateprovince',
  parentId: 'parent',
  // (the original's sticky flag is its menu order)
  menuOrder: 'sticky',
  icalUid: 'ical_uid',
};

const NOT_FIELDS = new Set([
  'modified',
  'modifiedUtc',
  'version',
  'statusBeforeTrash',
  'icalSequence',
  'timezoneAbbr',
  'kind',
  'seriesId',
  // whether a venue's state or province was sent as such: what shows is `stateprovince`
  'stateprovinceExplicit',
  'linksModifiedUtc',
  'id',
  'type',
]);

export function wireFieldName(key: string): string | undefined {
  if (NOT_FIELDS.has(key)) return undefined;
  return WIRE_NAMES[key] ?? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The wire names of the keys of `patch` whose values differ from `before`'s. */
export function changedFieldNames(before: object, patch: object): string[] {
  const b = before as Record<string, unknown>;
  const out = new Set<string>();
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const was = b[key];
    if (was === value || JSON.stringify(was) === JSON.stringify(value)) continue;
    const name = wireFieldName(key);
    if (name) out.add(name);
  }
  return [...out];
}
