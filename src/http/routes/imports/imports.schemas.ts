/** Response schemas of import jobs (FEATURES.md §3.4). */
import { type Static, type TObject, Type } from '@sinclair/typebox';
import { Nullable } from '../../schemas/components.schemas.js';

export const ImportErrorSchema = Type.Object({
  uid: Nullable(Type.String({ description: 'The UID of the VEVENT that failed, when it has one.' })),
  recurrence_id: Nullable(Type.String({ description: 'Its RECURRENCE-ID (as the original start, YYYY-MM-DD HH:MM:SS), for an override.' })),
  line: Nullable(Type.Integer({ description: 'The line of the file where the VEVENT (or the malformed part) starts.' })),
  reason: Type.String(),
});

/** An object or null (OpenAPI 3.0's `nullable`). */
const NullableObject = <T extends TObject>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });

const Counts = Type.Object({
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer(),
  trashed: Type.Integer(),
  failed: Type.Integer(),
});

/** A site import's report (FEATURES.md §6.3): counts per resource, warnings with the remote id and the reason. */
export const TecReportSchema = Type.Object({
  site: NullableObject(Type.Object({ api_root: Type.String(), name: Type.String(), timezone: Type.String() })),
  resources: Type.Object({
    categories: Counts,
    tags: Counts,
    venues: Counts,
    organizers: Counts,
    events: Counts,
    images: Counts,
  }),
  warnings: Type.Array(Type.Object({ resource: Type.String(), remote_id: Type.String(), reason: Type.String() }), {
    description: 'What could not be seen or disagreed on the site, by remote id (at most 1000).',
  }),
  listed: Type.Object({ total: Type.Integer(), found: Type.Integer() }, { description: 'Events the site lists, and how many came across.' }),
  probes: Type.Object(
    {
      probed: Type.Integer(),
      found: Type.Integer(),
      not_readable: Type.Integer(),
      not_events: Type.Integer(),
      limit_reached: Type.Boolean(),
    },
    { description: 'Ids between the listed events read one by one (events hidden from listings are found so).' },
  ),
  requests: Type.Integer(),
  waited_ms: Type.Integer({ description: 'How long the site asked us to wait (Retry-After).' }),
  complete: Type.Boolean({ description: 'Whether the pass saw everything (only then does `prune` trash).' }),
  redirects: Type.Integer({ description: 'Old permalinks in the redirect map.' }),
});

export const TecOptionsSchema = Type.Object({
  since: Nullable(Type.String()),
  prune: Type.Boolean(),
  group_series: Type.Boolean(),
  images: Type.String(),
  concurrency: Type.Integer(),
  app_password: Type.Boolean({ description: 'Whether an application password was given (it is never shown, and forgotten when the job ends).' }),
  event_password: Type.Boolean(),
  author: Nullable(Type.Integer()),
  max_probes: Type.Integer(),
});

export const ImportJobSchema = Type.Object({
  id: Type.Integer(),
  source: Type.String({ description: '`ics` or `tec`.' }),
  state: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')]),
  url: Nullable(Type.String({ description: 'The URL imported from; null for an uploaded file.' })),
  dry_run: Type.Boolean(),
  default_status: Type.String(),
  update_authority: Type.String({ description: '`overwrite`, `retain` or `preserve_local_changes`.' }),
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }),
  counts: Type.Object({ created: Type.Integer(), updated: Type.Integer(), skipped: Type.Integer(), failed: Type.Integer() }),
  errors: Type.Array(ImportErrorSchema, { description: 'One entry per item that failed.' }),
  failure: Nullable(Type.String({ description: 'Why the whole job failed (a malformed file with its line, a refused URL).' })),
  user: Type.Integer({ description: 'The user who asked for the import.' }),
  created_at: Type.String(),
  started_at: Nullable(Type.String()),
  finished_at: Nullable(Type.String()),
  rest_url: Type.String({ format: 'uri' }),
  tec_options: NullableObject(TecOptionsSchema),
  report: NullableObject(TecReportSchema),
});
export type ImportJobBody = Static<typeof ImportJobSchema>;

export const ImportListSchema = Type.Object({
  imports: Type.Array(ImportJobSchema),
  total: Type.Integer(),
  total_pages: Type.Integer(),
});
