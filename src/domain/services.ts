/**
 * The services of the domain, built once per app over one storage. Route handlers and argument checks reach
 * the domain only through these (never the storage or the configuration themselves).
 */
import type { Config } from '../config/config.js';
import type { Storage } from '../storage/storage.js';
import type { Actor } from './actor.js';
import { EventService, type EventView } from './events/event.service.js';
import { ImportService } from './imports/import.service.js';
import { type LinkedType, ORGANIZER, type OrganizerRecord, VENUE, type VenueRecord } from './linked/linked.js';
import { LinkedService, type LinkedView } from './linked/linked.service.js';
import { MediaService } from './media/media.service.js';
import { canReadPost } from './policies.js';
import type { PostType } from './posts/post.js';
import { mayWritePost } from './posts/post-writer.js';
import { eventSource, linkedSource, termSource } from './sync/sources.js';
import { SyncService, type SyncSource } from './sync/sync.service.js';
import type { Term } from './terms/term.js';
import { CATEGORIES, TAGS } from './terms/term.js';
import { TermService } from './terms/term.service.js';
import { UserService } from './users/user.service.js';
import { httpSender } from './webhooks/send.js';
import { WebhookService } from './webhooks/webhook.service.js';

export interface Services {
  /** The site's time zone: dates without one are read in it. */
  readonly siteTimezone: string;
  /** The site's name and description (feeds name themselves with them). */
  readonly site: { readonly name: string; readonly description: string };
  readonly users: UserService;
  readonly categories: TermService;
  readonly tags: TermService;
  readonly events: EventService;
  readonly venues: LinkedService<'venue'>;
  readonly organizers: LinkedService<'organizer'>;
  /** Import jobs (FEATURES.md §3.4). */
  readonly imports: ImportService;
  /** Image files kept here (site imports' downloads), served at `/media/…`. */
  readonly media: MediaService;
  /** Sync tokens and the change log's retention (FEATURES.md §2.3). */
  readonly sync: SyncService;
  /** Webhook endpoints and the deliveries made from the change log (FEATURES.md §4). */
  readonly webhooks: WebhookService;
  /** What each list route shows a caller in a sync. */
  readonly syncSources: {
    readonly events: SyncSource<EventView>;
    readonly venues: SyncSource<LinkedView<VenueRecord>>;
    readonly organizers: SyncSource<LinkedView<OrganizerRecord>>;
    readonly categories: SyncSource<Term>;
    readonly tags: SyncSource<Term>;
  };
  /** The service of a linked kind. */
  linked<T extends LinkedType>(type: T): LinkedService<T>;
  /**
   * The ids among these that name a post of the type the caller may read. Filters and links accept only
   * these: an id the caller may not read is answered like an id that does not exist, so nothing leaks.
   */
  readablePosts(actor: Actor, ids: readonly number[], type: PostType): Promise<Set<number>>;
  /** Whether a stored image has this id. */
  imageExists(id: number): Promise<boolean>;
  /**
   * WordPress' permission callback for writing a post (what the `Allow` header reports): the general
   * capability, then, when the post exists, the check on that post.
   */
  mayWritePost(actor: Actor, verb: 'edit' | 'delete', id: number | undefined): Promise<boolean>;
  /** Moves on with every committed write, in any process (the response cache compares against it). */
  dataVersion(): Promise<number>;
  /** Whether the database answers, and which one it is (`/healthz`). */
  health(): Promise<{ readonly ok: boolean; readonly database: string; readonly error?: unknown }>;
}

export function createServices(config: Config, storage: Storage): Services {
  const zone = config.siteTimezone;
  const categories = new TermService(storage, CATEGORIES);
  const tags = new TermService(storage, TAGS);
  const venues = new LinkedService<'venue'>(storage, zone, VENUE);
  const organizers = new LinkedService<'organizer'>(storage, zone, ORGANIZER);
  const events = new EventService(
    storage,
    zone,
    categories,
    tags,
    venues,
    organizers,
    Date.now,
    config.recurrenceHorizonMonths,
    new URL(config.publicUrl).hostname,
  );
  return {
    siteTimezone: zone,
    site: { name: config.siteName, description: config.siteDescription },
    users: new UserService(storage),
    categories,
    tags,
    events,
    venues,
    organizers,
    // each imported item is written in a transaction of its own, by services bound to it
    imports: new ImportService(
      storage,
      (tx) => createServices(config, tx).events,
      {
        siteZone: zone,
        allowPrivate: config.importAllowPrivate,
        parseTimeoutMs: config.importParseTimeoutMs,
        tec: {
          retryBaseMs: config.importRetryBaseMs,
          maxFailures: 5,
          userAgent: `calendar-events-service-importer/0.1 (+${config.publicUrl})`,
          mediaBase: config.publicUrl.replace(/\/+$/, ''),
        },
      },
      Date.now,
      (tx) => createServices(config, tx),
    ),
    media: new MediaService(storage),
    sync: new SyncService(storage, config.syncRetentionDays),
    webhooks: new WebhookService(storage, {
      allowPrivate: config.webhooksAllowPrivate,
      verifyUrl: config.webhooksVerify,
      sender: httpSender({ allowPrivate: config.webhooksAllowPrivate, timeoutMs: 15_000 }),
      userAgent: `events-api-webhooks/0.1 (+${config.publicUrl})`,
      leaseMs: config.webhooksLeaseMs,
    }),
    syncSources: {
      events: eventSource(storage, events),
      venues: linkedSource(storage, 'venue', venues),
      organizers: linkedSource(storage, 'organizer', organizers),
      categories: termSource(storage, categories),
      tags: termSource(storage, tags),
    },
    linked: <T extends LinkedType>(type: T) => (type === 'venue' ? venues : organizers) as unknown as LinkedService<T>,
    async readablePosts(actor, ids, type) {
      const rows = await storage.posts.findAccessMany(ids);
      return new Set(rows.filter((r) => r.type === type && canReadPost(actor, r)).map((r) => r.id));
    },
    imageExists: async (id) => (await storage.images.find(id)) !== undefined,
    mayWritePost: (actor, verb, id) => mayWritePost(storage, actor, verb, id),
    dataVersion: () => storage.versions().then((v) => v.data),
    async health() {
      try {
        await storage.ping();
        return { ok: true, database: storage.dialect.name };
      } catch (error) {
        return { ok: false, database: storage.dialect.name, error };
      }
    },
  };
}
