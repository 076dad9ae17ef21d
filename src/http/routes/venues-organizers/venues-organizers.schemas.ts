/** Response schemas of venues and organizers: keys with empty values are left out, hence the optional ones. */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { LinkedType } from '../../../domain/linked/linked.js';
import { ImageSchema, postDates } from '../../schemas/components.schemas.js';

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

const head = {
  id: Type.Integer(),
  author: opt(Type.String({ description: "The author's user id, as a string." })),
  ...postDates,
  url: Type.String({ format: 'uri' }),
};
const body = {
  description: opt(Type.String()),
  excerpt: opt(Type.String()),
  slug: opt(Type.String()),
  image: opt(ImageSchema),
};

export const VenueSchema = Type.Object(
  {
    ...head,
    venue: Type.String({ description: 'The venue name.' }),
    ...body,
    address: opt(Type.String()),
    city: opt(Type.String()),
    country: opt(Type.String()),
    province: opt(Type.String()),
    state: opt(Type.String()),
    zip: opt(Type.String()),
    phone: opt(Type.String()),
    website: opt(Type.String()),
    stateprovince: opt(Type.String()),
    geo_lat: opt(Type.Number({ format: 'double' })),
    geo_lng: opt(Type.Number({ format: 'double' })),
    json_ld: opt(Type.Object({}, { additionalProperties: true })),
    show_map: Type.Boolean(),
    show_map_link: Type.Boolean(),
    global_id: Type.String(),
    global_id_lineage: Type.Array(Type.String()),
  },
  { title: 'Venue' },
);

export const OrganizerSchema = Type.Object(
  {
    ...head,
    organizer: Type.String({ description: 'The organizer name.' }),
    ...body,
    phone: opt(Type.String()),
    website: opt(Type.String()),
    email: opt(Type.String()),
    json_ld: opt(Type.Object({}, { additionalProperties: true })),
    global_id: Type.String(),
    global_id_lineage: Type.Array(Type.String()),
  },
  { title: 'Organizer' },
);

export type VenueResponse = Static<typeof VenueSchema>;
export type OrganizerResponse = Static<typeof OrganizerSchema>;

export const LINKED_SCHEMAS = { venue: VenueSchema, organizer: OrganizerSchema } as const satisfies Record<LinkedType, TSchema>;

export function linkedListSchema(key: 'venues' | 'organizers', item: TSchema) {
  return Type.Object({
    [key]: Type.Array(item),
    rest_url: Type.String({ format: 'uri' }),
    next_rest_url: opt(Type.String({ format: 'uri' })),
    previous_rest_url: opt(Type.String({ format: 'uri' })),
    total: Type.Integer(),
    total_pages: Type.Integer(),
  });
}
