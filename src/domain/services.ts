/**
 * The services of the domain, built once per app over one storage. Route handlers and argument checks reach
 * the domain only through these.
 */
import type { Config } from '../config/config.js';
import type { Storage } from '../storage/storage.js';
import type { PostType } from '../storage/database.js';
import type { Actor } from './actor.js';
import { can, canDeletePost, canEditPost, canReadPost } from './policies.js';
import { EventService } from './events/event.service.js';
import { LinkedService } from './linked/linked.service.js';
import type { OrganizerRecord, VenueRecord } from './linked/linked.js';
import { CATEGORIES, TAGS } from './terms/term.js';
import { TermService } from './terms/term.service.js';
import { UserService } from './users/user.service.js';

export interface Services {
  readonly config: Config;
  readonly storage: Storage;
  readonly users: UserService;
  readonly categories: TermService;
  readonly tags: TermService;
  readonly events: EventService;
  readonly venues: LinkedService<VenueRecord>;
  readonly organizers: LinkedService<OrganizerRecord>;
  /** Which kind of post an id names (one id space for events, venues, organizers, images). */
  postType(id: number): Promise<PostType | undefined>;
  /**
   * The ids among these that name a post of the type the caller may read. Filters and links accept only
   * these: an id the caller may not read is answered like an id that does not exist, so nothing leaks.
   */
  readablePosts(actor: Actor, ids: readonly number[], type: PostType): Promise<Set<number>>;
  /**
   * WordPress' permission callback for writing a post (what the `Allow` header reports): the general
   * capability, then, when the post exists, the check on that post.
   */
  mayWritePost(actor: Actor, verb: 'edit' | 'delete', id: number | undefined): Promise<boolean>;
}

export function createServices(config: Config, storage: Storage): Services {
  const categories = new TermService(storage, CATEGORIES);
  const tags = new TermService(storage, TAGS);
  const venues = new LinkedService<VenueRecord>(storage, config, 'venue');
  const organizers = new LinkedService<OrganizerRecord>(storage, config, 'organizer');
  return {
    config,
    storage,
    users: new UserService(storage),
    categories,
    tags,
    events: new EventService(storage, config, categories, tags, venues, organizers),
    venues,
    organizers,
    postType: (id) => storage.posts.typeOf(id),
    async readablePosts(actor, ids, type) {
      const rows = await storage.posts.findAccessMany(ids);
      return new Set(rows.filter((r) => r.type === type && canReadPost(actor, r)).map((r) => r.id));
    },
    async mayWritePost(actor, verb, id) {
      if (!can(actor, verb === 'edit' ? 'edit_posts' : 'delete_posts')) return false;
      const access = id === undefined ? undefined : await storage.posts.findAccess(id);
      if (!access) return true;
      return verb === 'edit' ? canEditPost(actor, access) : canDeletePost(actor, access);
    },
  };
}
