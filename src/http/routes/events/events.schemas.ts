/** Response schemas of the event routes: the Event object of CONTRACT.md §2.1 and the list envelope. */
import { type Static, Type } from '@sinclair/typebox';
import { CostDetailsSchema, DateDetailsSchema, EmbeddedTermSchema, ImageSchema, Nullable, postDates } from '../../schemas/components.schemas.js';
import { OrganizerSchema, VenueSchema } from '../venues-organizers/venues-organizers.schemas.js';

const details = DateDetailsSchema;

export const EventSchema = Type.Object(
  {
    id: Type.Integer(),
    global_id: Type.String(),
    global_id_lineage: Type.Array(Type.String()),
    author: Type.String({ description: "The author's user id, as a string." }),
    ...postDates,
    url: Type.String({ format: 'uri' }),
    rest_url: Type.String({ format: 'uri' }),
    title: Type.String(),
    description: Type.String(),
    excerpt: Type.String(),
    slug: Type.String(),
    image: Type.Union([ImageSchema, Type.Literal(false)]),
    all_day: Type.Boolean(),
    start_date: Type.String(),
    start_date_details: details,
    end_date: Type.String(),
    end_date_details: details,
    utc_start_date: Type.String(),
    utc_start_date_details: details,
    utc_end_date: Type.String(),
    utc_end_date_details: details,
    timezone: Type.String(),
    timezone_abbr: Type.String(),
    cost: Type.String(),
    cost_details: CostDetailsSchema,
    website: Type.String(),
    show_map: Type.Boolean(),
    show_map_link: Type.Boolean(),
    hide_from_listings: Type.Boolean(),
    sticky: Type.Boolean(),
    featured: Type.Boolean(),
    categories: Type.Array(EmbeddedTermSchema),
    tags: Type.Array(EmbeddedTermSchema),
    venue: Type.Union([VenueSchema, Type.Array(Type.Never(), { maxItems: 0 })], {
      description: 'The linked venue, or an empty array when there is none (or the caller may not read it).',
    }),
    organizer: Type.Array(OrganizerSchema, { description: 'The linked organizers the caller may read, in link order.' }),
    custom_fields: Type.Union(
      [Type.Record(Type.String(), Type.Object({ label: Type.String(), value: Type.String() })), Type.Array(Type.Never(), { maxItems: 0 })],
      {
        description:
          'The Events Calendar Pro\'s additional fields, by meta name: `{"_ecp_custom_1": {"label": …, "value": …}}`; an empty array when there are none. Read-only: they come from a site import.',
      },
    ),
    json_ld: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Single reads only.' })),
    // recurring events only (FEATURES.md §1.5): absent on single events, so their key set is the original's
    series_id: Type.Optional(Type.Integer({ description: 'Occurrences: the id of their series.' })),
    occurrence_key: Type.Optional(
      Type.String({ description: 'Occurrences: an opaque key of the instance, `{series}_{original start}`; stable like the id.' }),
    ),
    original_start_date: Type.Optional(
      Type.String({ description: "Occurrences: where the rule puts the instance (the series' time zone), even if it was moved." }),
    ),
    original_utc_start_date: Type.Optional(Type.String({ description: 'Occurrences: the same in UTC.' })),
    is_exception: Type.Optional(Type.Boolean({ description: 'Occurrences: whether it was edited apart from its series.' })),
    recurrence: Type.Optional(Type.Array(Type.String(), { description: 'Series: the RRULE/RDATE/EXDATE lines, normalised.' })),
    recurrence_text: Type.Optional(Type.String({ description: 'Series: the rule in words.' })),
    split_from: Type.Optional(Type.Integer({ description: 'Series made by a split ("this and following"): the series it came from.' })),
    removed_occurrences: Type.Optional(
      Type.Array(Type.Integer(), { description: 'Writes of a series: ids of the occurrences the change removed (they answer 410 from now on).' }),
    ),
  },
  { title: 'Event' },
);

export type EventResponse = Static<typeof EventSchema>;

/** Keys only recurring items (and writes of series) carry, after the original's (FEATURES.md §0 C2). */
export const RECURRING_EVENT_KEYS: readonly string[] = [
  'series_id',
  'occurrence_key',
  'original_start_date',
  'original_utc_start_date',
  'is_exception',
  'recurrence',
  'recurrence_text',
  'split_from',
  'removed_occurrences',
] satisfies (keyof EventResponse)[];

/** The keys of the original's event object, in its order (json_ld included: single reads only). */
export const V1_EVENT_KEYS = Object.keys(EventSchema.properties).filter((k) => !RECURRING_EVENT_KEYS.includes(k));

export const EventListSchema = Type.Object({
  events: Type.Array(EventSchema),
  rest_url: Type.String({ format: 'uri' }),
  next_rest_url: Type.Optional(Type.String({ format: 'uri' })),
  previous_rest_url: Type.Optional(Type.String({ format: 'uri' })),
  total: Type.Integer(),
  total_pages: Type.Integer(),
});

/** What FullCalendar's event objects carry beside their own keys (`extendedProps`). */
export const FeedEventPropsSchema = Type.Object({
  venue: Nullable(Type.String({ description: "The venue's name (null: none, or the caller may not read it)." })),
  organizers: Type.Array(Type.String(), { description: "The organizers' names." }),
  categories: Type.Array(Type.String(), { description: 'Category slugs.' }),
  tags: Type.Array(Type.String(), { description: 'Tag slugs.' }),
  cost: Type.String({ description: 'The cost as the event object shows it.' }),
  featured: Type.Boolean(),
  timezone: Type.String({ description: "The event's own time zone." }),
  rest_url: Type.String({ format: 'uri', description: 'The event (or occurrence) in this API.' }),
  series_id: Type.Optional(Type.Integer({ description: 'Occurrences: their series.' })),
  occurrence_key: Type.Optional(Type.String({ description: 'Occurrences: the stable key of the instance.' })),
});

/**
 * One item of the FullCalendar feed (FEATURES.md §5.3): an Event Object as FullCalendar reads it
 * (https://fullcalendar.io/docs/event-object).
 */
export const FeedEventSchema = Type.Object(
  {
    id: Type.String({ description: 'The event or occurrence id.' }),
    groupId: Type.Optional(Type.String({ description: 'Occurrences: the id of their series (FullCalendar moves a group together).' })),
    title: Type.String(),
    start: Type.String({
      description: "ISO 8601: a date for all-day events; else a date-time with the offset of timeZone (or of the event's zone).",
    }),
    end: Type.String({ description: 'The same; for all-day events the day after the last one (FullCalendar ends are exclusive).' }),
    allDay: Type.Boolean(),
    url: Type.String({ format: 'uri', description: "The event's page." }),
    extendedProps: FeedEventPropsSchema,
  },
  { title: 'FeedEvent' },
);

export type FeedEvent = Static<typeof FeedEventSchema>;
