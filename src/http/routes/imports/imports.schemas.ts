/** Response schemas of import jobs (FEATURES.md §3.4). */
import { type Static, Type } from '@sinclair/typebox';
import { Nullable } from '../../schemas/components.schemas.js';

export const ImportErrorSchema = Type.Object({
  uid: Nullable(Type.String({ description: 'The UID of the VEVENT that failed, when it has one.' })),
  recurrence_id: Nullable(Type.String({ description: 'Its RECURRENCE-ID (as the original start, YYYY-MM-DD HH:MM:SS), for an override.' })),
  line: Nullable(Type.Integer({ description: 'The line of the file where the VEVENT (or the malformed part) starts.' })),
  reason: Type.String(),
});

export const ImportJobSchema = Type.Object({
  id: Type.Integer(),
  source: Type.String({ description: '`ics`.' }),
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
});
export type ImportJobBody = Static<typeof ImportJobSchema>;

export const ImportListSchema = Type.Object({
  imports: Type.Array(ImportJobSchema),
  total: Type.Integer(),
  total_pages: Type.Integer(),
});
