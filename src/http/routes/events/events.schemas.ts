/** Response schemas of the event routes: the Event object of CONTRACT.md §2.1 and the list envelope. */
import { Type } from '@sinclair/typebox';

export const DateDetailsSchema = Type.Object(
  {
    year: Type.String(),
    month: Type.String(),
    day: Type.String(),
    hour: Type.String(),
    minutes: Type.String(),
    seconds: Type.String(),
  },
  { title: 'DateDetails', description: 'The parts of a date-time, as zero-padded strings.' },
);

export const ImageSizeSchema = Type.Object(
  {
    width: Type.Integer(),
    height: Type.Integer(),
    'mime-type': Type.String(),
    filesize: Type.Optional(Type.Integer()),
    url: Type.String({ format: 'uri' }),
  },
  { title: 'ImageSize' },
);

export const ImageSchema = Type.Object(
  {
    url: Type.String({ format: 'uri' }),
    id: Type.Integer(),
    extension: Type.Optional(Type.String()),
    width: Type.Optional(Type.Integer()),
    height: Type.Optional(Type.Integer()),
    filesize: Type.Optional(Type.Integer()),
    sizes: Type.Optional(Type.Record(Type.String(), ImageSizeSchema)),
  },
  { title: 'Image' },
);

export const CostDetailsSchema = Type.Object(
  {
    currency_symbol: Type.String(),
    currency_code: Type.String(),
    currency_position: Type.String({ description: 'prefix, postfix, or empty' }),
    values: Type.Array(Type.String()),
  },
  { title: 'CostDetails' },
);

const TermUrls = Type.Object({
  self: Type.String({ format: 'uri' }),
  collection: Type.String({ format: 'uri' }),
  up: Type.Optional(Type.String({ format: 'uri' })),
});

export const EmbeddedTermSchema = Type.Object(
  {
    name: Type.String(),
    slug: Type.String(),
    term_group: Type.Integer(),
    term_taxonomy_id: Type.Integer(),
    taxonomy: Type.String(),
    description: Type.String(),
    parent: Type.Integer(),
    count: Type.Integer(),
    filter: Type.String(),
    id: Type.Integer(),
    urls: TermUrls,
  },
  { title: 'Term' },
);

const details = DateDetailsSchema;

export const EventSchema = Type.Object(
  {
    id: Type.Integer(),
    global_id: Type.String(),
    global_id_lineage: Type.Array(Type.String()),
    author: Type.String({ description: 'The author\'s user id, as a string.' }),
    status: Type.String(),
    date: Type.String(),
    date_utc: Type.String(),
    modified: Type.String(),
    modified_utc: Type.String(),
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
    venue: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Array(Type.Unknown(), { maxItems: 0 })], {
      description: 'The linked venue, or an empty array when there is none.',
    }),
    organizer: Type.Array(Type.Object({}, { additionalProperties: true })),
    custom_fields: Type.Array(Type.Unknown()),
    json_ld: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Single reads only.' })),
  },
  { title: 'Event' },
);

export const EventListSchema = Type.Object({
  events: Type.Array(EventSchema),
  rest_url: Type.String({ format: 'uri' }),
  next_rest_url: Type.Optional(Type.String({ format: 'uri' })),
  previous_rest_url: Type.Optional(Type.String({ format: 'uri' })),
  total: Type.Integer(),
  total_pages: Type.Integer(),
});
