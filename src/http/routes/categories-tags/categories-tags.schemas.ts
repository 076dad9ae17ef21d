/** Response schemas of the category and tag routes (CONTRACT.md §2.5a): the term and the list envelope. */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { TermUrlsSchema } from '../../schemas/components.schemas.js';

const head = {
  id: Type.Integer({ description: 'Term id.' }),
  count: Type.Integer({ description: 'Number of published events with the term.' }),
  description: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  taxonomy: Type.String({ description: '`tribe_events_cat` for categories, `post_tag` for tags.' }),
};
const tail = {
  meta: Type.Array(Type.Never(), { description: 'Always empty.' }),
  url: Type.String({ format: 'uri', description: 'Public archive link of the term.' }),
  urls: TermUrlsSchema,
};

export const CategorySchema = Type.Object(
  { ...head, parent: Type.Integer({ description: 'Parent category id, 0 for none.' }), ...tail },
  { title: 'Category' },
);
export const TagSchema = Type.Object({ ...head, ...tail }, { title: 'Tag' });

export type CategoryResponse = Static<typeof CategorySchema>;
export type TagResponse = Static<typeof TagSchema>;

/** The term-list envelope: note its key order differs from the event list's. */
export function termListSchema(key: 'categories' | 'tags', item: TSchema) {
  return Type.Object({
    rest_url: Type.String({ format: 'uri' }),
    total: Type.Integer(),
    total_pages: Type.Integer(),
    [key]: Type.Array(item),
    next_rest_url: Type.Optional(Type.String({ format: 'uri' })),
    previous_rest_url: Type.Optional(Type.String({ format: 'uri' })),
  });
}
