import type { Kysely } from 'kysely';
import type { Database, PostType } from '../database.js';

/** What all post types share: the row of `posts` (events, venues, organizers, images). */
export class PostStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** The type of the post with this id, or undefined when there is none. */
  async typeOf(id: number): Promise<PostType | undefined> {
    const row = await this.db.selectFrom('posts').select('type').where('id', '=', id).executeTakeFirst();
    return row?.type;
  }
}
