/**
 * The tables as Kysely sees them. Date-times are stored as `YYYY-MM-DD HH:MM:SS` text (sortable, identical on
 * both databases); booleans as 0/1 integers.
 *
 * Id spaces (DECISIONS.md): events, venues, organizers and stored images are rows of `posts` and share its ids;
 * categories and tags share the ids of `terms`.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { PostType } from '../domain/posts/post.js';

export type Flag = 0 | 1;

export interface UsersTable {
  id: Generated<number>;
  login: string;
  email: string;
  display_name: string;
  role: string;
  created_at: string;
  modified_at: string;
}

export interface AppPasswordsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** `sha256` for generated (random) passwords, `scrypt` for ones a person chose. */
  kdf: string;
  salt: string;
  hash: string;
  created_at: string;
}

export type { PostType };

export interface PostsTable {
  id: Generated<number>;
  type: PostType;
  status: string;
  status_before_trash: string | null;
  author_id: number;
  title: string;
  content: Generated<string>;
  excerpt: Generated<string>;
  slug: string;
  password: Generated<string>;
  parent_id: Generated<number>;
  menu_order: Generated<number>;
  image_id: number | null;
  /** Publication date, site-local and UTC. */
  date: string;
  date_utc: string;
  modified: string;
  modified_utc: string;
  /** JSON array of the global ids it was imported with (migration 0011); null for what was made here. */
  global_id_lineage: string | null;
  /** Moved on by every write of the row: what a conditional write must find unchanged (migration 0013). */
  version: Generated<number>;
}

export interface EventsTable {
  post_id: number;
  /** Equal to the post's status (kept so by EventStore), for the listing index. */
  status: string;
  /** Wall-clock start/end in the event's own time zone. */
  start_date: string;
  end_date: string;
  start_utc: string;
  end_utc: string;
  timezone: string;
  timezone_abbr: string;
  all_day: Flag;
  /** JSON array of the cost strings as sent. */
  cost: string;
  currency_symbol: string;
  currency_code: string;
  currency_position: string;
  /** `null`: never set, the permalink is shown; `''`: cleared. */
  website: string | null;
  show_map: Flag;
  show_map_link: Flag;
  hide_from_listings: Flag;
  featured: Flag;
  venue_id: number | null;
  /** `single`, `series` (a recurring event's master, never listed as an occurrence) or `occurrence`. */
  kind: Generated<string>;
  /** The series of an occurrence (its master's post id); null otherwise. */
  series_id: Generated<number | null>;
  /** iCalendar UID (migration 0008); null for occurrences. */
  ical_uid: Generated<string | null>;
  /** iCalendar SEQUENCE: changes of the event's times. */
  ical_sequence: Generated<number>;
  /** JSON array of `{name, label, value}`: Pro's additional fields (migration 0015); null when none. */
  custom_fields: Generated<string | null>;
  /**
   * 1: an occurrence that carries its series' categories and tags (it has no `term_relationships` of its own;
   * migration 0017); 0 otherwise.
   */
  shared_terms: Generated<Flag>;
  /** When a venue, organizer or term it shows last changed (migration 0029); null until one did. */
  links_modified_utc: Generated<string | null>;
}

/** A recurring event's rule, beside its master's `events` row (FEATURES.md §1.5). */
export interface EventSeriesTable {
  post_id: number;
  /** JSON array of the normalised RRULE/RDATE/EXDATE lines. */
  recurrence: string;
  bounded: Flag;
  /** Unbounded series: instances whose original wall time is before this are materialised. */
  materialized_until: string | null;
  /** The series this one was split from ("this and following"). */
  split_from: number | null;
}

/**
 * Every occurrence a series ever had, by its stable id (a post id): `active` and `cancelled` ones have their
 * post and event rows; `gone` ones (their original start left the rule) keep only this row, so that their id
 * answers 410 and is never given again.
 */
export interface OccurrencesTable {
  id: number;
  series_id: number;
  /** The instant the rule gives (UTC) and the same as the series' wall time: with the series, the identity. */
  original_start_utc: string;
  original_start: string;
  state: string;
  /** JSON array of the fields an edit of this occurrence alone set (an exception when not empty). */
  overrides: string;
  /**
   * 1: the occurrence has `posts` and `events` rows of its own (it was edited alone or cancelled); 0: it is its
   * series' in everything but its dates (a "plain" occurrence, migration 0023), or gone.
   */
  own_rows: Generated<number>;
  /** A plain occurrence's status and hidden flag (its master's, copied for the listing index and day counts). */
  status: Generated<string>;
  hidden: Generated<number>;
  /** A plain occurrence's dates (its zone and all-day flag are its master's). */
  start_date: Generated<string>;
  end_date: Generated<string>;
  start_utc: Generated<string>;
  end_utc: Generated<string>;
  timezone_abbr: Generated<string>;
}

export interface EventOrganizersTable {
  event_id: number;
  organizer_id: number;
  position: number;
}

export interface VenuesTable {
  post_id: number;
  address: string;
  city: string;
  country: string;
  province: string;
  state: string;
  zip: string;
  phone: string;
  website: string;
  stateprovince: string;
  show_map: Flag;
  show_map_link: Flag;
  geo_lat: number | null;
  geo_lng: number | null;
  /** 1: `stateprovince` was sent and stays; 0: it follows state/province/country (migration 0005). */
  stateprovince_explicit: Generated<Flag>;
}

export interface OrganizersTable {
  post_id: number;
  phone: string;
  website: string;
  email: string;
}

export interface ImagesTable {
  post_id: number;
  url: string;
  extension: string;
  mime_type: string;
  width: number | null;
  height: number | null;
  filesize: number | null;
  /** JSON object of named sizes, `{}` when none. */
  sizes: string;
}

export type Taxonomy = 'tribe_events_cat' | 'post_tag';

export interface TermsTable {
  id: Generated<number>;
  taxonomy: Taxonomy;
  name: string;
  slug: string;
  description: string;
  parent_id: number;
  /** Published events carrying the term, maintained by the writes. */
  count: Generated<number>;
  created_at: string;
  modified_at: string;
  /** Moved on by every write of the term's own fields (not its count): see PostsTable.version (migration 0013). */
  version: Generated<number>;
}

export interface TermRelationshipsTable {
  post_id: number;
  term_id: number;
}

export interface SchemaMigrationsTable {
  name: string;
  applied_at: string;
}

export interface DataVersionTable {
  id: number;
  version: number;
}

export interface Database {
  schema_migrations: SchemaMigrationsTable;
  users: UsersTable;
  app_passwords: AppPasswordsTable;
  posts: PostsTable;
  events: EventsTable;
  event_organizers: EventOrganizersTable;
  venues: VenuesTable;
  organizers: OrganizersTable;
  images: ImagesTable;
  terms: TermsTable;
  term_relationships: TermRelationshipsTable;
  data_version: DataVersionTable;
  event_day_counts: EventDayCountsTable;
  event_month_counts: EventMonthCountsTable;
  term_ancestors: TermAncestorsTable;
  event_terms: EventTermsTable;
  event_series: EventSeriesTable;
  occurrences: OccurrencesTable;
  import_jobs: ImportJobsTable;
  import_items: ImportItemsTable;
  import_map: ImportMapTable;
  changes: ChangesTable;
  sync_state: SyncStateTable;
  media_blobs: MediaBlobsTable;
  media_sources: MediaSourcesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

/** Image files kept here, once per distinct bytes (migration 0014). */
export interface MediaBlobsTable {
  sha256: string;
  mime_type: string;
  extension: string;
  size: number;
  width: number;
  height: number;
  bytes: Buffer;
  created_at: string;
  modified_at: string;
}

/** What a remote image URL gave, and how to ask it again (migration 0014). */
export interface MediaSourcesTable {
  url_sha256: string;
  url: string;
  blob_sha256: string;
  etag: string | null;
  last_modified: string | null;
  checked_pass: string | null;
  created_at: string;
  modified_at: string;
}

/** The change log (migration 0012): one row per change of a resource, written in the change's transaction. */
export interface ChangesTable {
  seq: Generated<number>;
  /** PostgreSQL: the writing transaction's id (its default); SQLite: 0. */
  tx: Generated<number>;
  resource_type: string;
  resource_id: number;
  op: string;
  occurred_at: string;
  /** A post's status after the change and before it (migration 0016); null for terms and deletes. */
  status: ColumnType<string | null, string | null | undefined, never>;
  prior_status: ColumnType<string | null, string | null | undefined, never>;
  /** The wire names of the fields an update changed, comma-separated; null when not known. */
  fields: ColumnType<string | null, string | null | undefined, never>;
}

/** A webhook endpoint (migration 0016). Times in ms. */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  url: string;
  description: string;
  event_types: string;
  filter: string | null;
  payload: string;
  active: Flag;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  owner_id: number;
  failing_since: number | null;
  disabled_at: number | null;
  created_at: number;
  modified_at: number;
}

/** One message to one endpoint, tried until it succeeds or the schedule ends (migration 0016). */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  msg_id: string;
  type: string;
  seq: number;
  resource_type: string | null;
  resource_id: number | null;
  occurred_at: string;
  data: string;
  state: string;
  ordered: Generated<Flag>;
  attempts: Generated<number>;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  completed_at: number | null;
}

/** One attempt of a delivery: the delivery log (migration 0016). */
export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempt: number;
  started_at: number;
  duration_ms: number;
  status: number | null;
  error: string | null;
  request_headers: string;
  response: string | null;
}

/** Named values of the sync machinery: the token secret, how far the retention removed changes. */
export interface SyncStateTable {
  name: string;
  value: string;
}

/** A job of an import (migration 0009): what to import, how far it got, and which process runs it. */
export interface ImportJobsTable {
  id: Generated<number>;
  source: string;
  state: string;
  options: string;
  payload_kind: string;
  payload: string;
  progress_done: Generated<number>;
  progress_total: Generated<number>;
  created: Generated<number>;
  updated: Generated<number>;
  skipped: Generated<number>;
  failed: Generated<number>;
  errors: Generated<string>;
  failure: string | null;
  user_id: number;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  modified_at: string;
  /** JSON: how far a site import got (migration 0011). */
  checkpoint: string | null;
  /** JSON: a site import's counts per resource and warnings (migration 0011). */
  report: string | null;
}

/** Which local post an item of a source became, and what it was when imported last (migration 0009). */
export interface ImportItemsTable {
  source: string;
  source_key: string;
  uid: string;
  recurrence_id: string;
  post_id: number;
  sequence: number | null;
  last_modified: string | null;
  hash: string;
  fields: string;
  local: string;
  job_id: number | null;
  created_at: string;
  modified_at: string;
}

/** Events per status, hidden flag, start day and end day (kept by triggers; see migration 0003). */
export interface EventDayCountsTable {
  status: string;
  hidden: number;
  start_day: string;
  end_day: string;
  n: number;
}

/** The day counts summed by start month and end month, `YYYY-MM` (kept by triggers on them; see migration 0026). */
export interface EventMonthCountsTable {
  status: string;
  hidden: number;
  start_month: string;
  end_month: string;
  n: number;
}

/** Each term and its ancestor categories, itself included (kept by triggers; see migration 0028). */
export interface TermAncestorsTable {
  term_id: number;
  ancestor_id: number;
}

/** An event filed under a term: linked to it or to a descendant, its own links or its series' (kept by triggers; see migration 0028). */
export interface EventTermsTable {
  term_id: number;
  post_id: number;
  status: string;
  hidden: number;
  start_date: string;
  end_date: string;
}

export type UserRow = Selectable<UsersTable>;
export type AppPasswordRow = Selectable<AppPasswordsTable>;
export type PostRow = Selectable<PostsTable>;
export type NewPost = Insertable<PostsTable>;
export type PostUpdate = Updateable<PostsTable>;
export type EventRow = Selectable<EventsTable>;
export type VenueRow = Selectable<VenuesTable>;
export type OrganizerRow = Selectable<OrganizersTable>;
export type ImageRow = Selectable<ImagesTable>;
export type TermRow = Selectable<TermsTable>;

// re-exported so stores need not import kysely for one type
export type { ColumnType };

/** Which local record a remote record of a site became (migration 0011). */
export interface ImportMapTable {
  source: string;
  source_key: string;
  kind: string;
  remote_id: string;
  local_id: number;
  remote_modified: string | null;
  content_hash: string;
  remote_global_id: string | null;
  seen_pass: string | null;
  incomplete: Generated<number>;
  old_path: string | null;
  created_at: string;
  modified_at: string;
}
