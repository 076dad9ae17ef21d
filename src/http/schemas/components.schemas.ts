/**
 * The named parts of the response objects (CONTRACT.md §1.2, §2): what events, venues, organizers and terms
 * embed. `/doc` lists each under its title; serializers take their types from these.
 */
import { type Static, type TInteger, type TString, Type } from '@sinclair/typebox';

/** The post's status and dates, as every post object carries them (in this order). */
export const postDates = {
  status: Type.String(),
  date: Type.String({ description: 'Publication date, site time.' }),
  date_utc: Type.String({
    description: "Publication date, UTC; `0000-00-00 00:00:00` for a draft or pending post (WordPress' unset date, as the original answers).",
  }),
  modified: Type.String(),
  modified_utc: Type.String({
    description: 'Last modification, UTC; `0000-00-00 00:00:00` for a draft or pending post not updated since it was made.',
  }),
};

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

export const TermUrlsSchema = Type.Object({
  self: Type.String({ format: 'uri' }),
  collection: Type.String({ format: 'uri' }),
  up: Type.Optional(Type.String({ format: 'uri' })),
});

/** A category or tag as embedded in an event (WordPress' term object). */
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
    filter: Type.Literal('raw'),
    id: Type.Integer(),
    urls: TermUrlsSchema,
  },
  { title: 'Term' },
);

export type DateDetails = Static<typeof DateDetailsSchema>;
export type ImageResponse = Static<typeof ImageSchema>;
export type CostDetails = Static<typeof CostDetailsSchema>;
export type TermUrls = Static<typeof TermUrlsSchema>;
export type EmbeddedTerm = Static<typeof EmbeddedTermSchema>;

/** A string or integer that may be null (OpenAPI 3.0's `nullable`: the document has no `null` type). */
export const Nullable = <T extends TString | TInteger>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
