/** Response schemas of the event routes: the Event object of CONTRACT.md §2.1 and the list envelope. */
import { type Static, Type } from '@sinclair/typebox';
import { CostDetailsSchema, DateDetailsSchema, EmbeddedTermSchema, ImageSchema, postDates } from '../../schemas/components.schemas.js';
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
    custom_fields: Type.Array(Type.Unknown()),
    json_ld: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Single reads only.' })),
  },
  { title: 'Event' },
);

export type EventResponse = Static<typeof EventSchema>;

export const EventListSchema = Type.Object({
  events: Type.Array(EventSchema),
  rest_url: Type.String({ format: 'uri' }),
  next_rest_url: Type.Optional(Type.String({ format: 'uri' })),
  previous_rest_url: Type.Optional(Type.String({ format: 'uri' })),
  total: Type.Integer(),
  total_pages: Type.Integer(),
});
