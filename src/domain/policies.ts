/**
 * The capability table of CONTRACT.md §7 as pure functions. Events, venues and organizers share one matrix
 * (WordPress capability types `tribe_events`, `tribe_venues`, `tribe_organizers`); per-object rules follow
 * WordPress' `map_meta_cap`: own vs others', published vs not, private, and trashed posts judged by the status
 * they had before the trash.
 */
import type { Actor, Role } from './actor.js';

export type Capability =
  | 'read'
  | 'edit_posts'
  | 'delete_posts'
  | 'publish_posts'
  | 'edit_published_posts'
  | 'delete_published_posts'
  | 'edit_others_posts'
  | 'delete_others_posts'
  | 'read_private_posts'
  | 'edit_private_posts'
  | 'delete_private_posts'
  | 'manage_categories'
  | 'upload_files'
  | 'unfiltered_html'
  /** Webhook endpoints, their deliveries and replays (issue 18): administrators only. */
  | 'manage_webhooks';

const ALL: readonly Capability[] = [
  'read',
  'edit_posts',
  'delete_posts',
  'publish_posts',
  'edit_published_posts',
  'delete_published_posts',
  'edit_others_posts',
  'delete_others_posts',
  'read_private_posts',
  'edit_private_posts',
  'delete_private_posts',
  'manage_categories',
  'upload_files',
  'unfiltered_html',
];

const ROLE_CAPABILITIES: Record<Role, ReadonlySet<Capability>> = {
  administrator: new Set<Capability>([...ALL, 'manage_webhooks']),
  editor: new Set(ALL),
  author: new Set<Capability>([
    'read',
    'edit_posts',
    'delete_posts',
    'publish_posts',
    'edit_published_posts',
    'delete_published_posts',
    'upload_files',
  ]),
  contributor: new Set<Capability>(['read', 'edit_posts', 'delete_posts']),
  subscriber: new Set<Capability>(['read']),
};

export function can(actor: Actor, capability: Capability): boolean {
  if (actor.kind !== 'user') return false;
  return ROLE_CAPABILITIES[actor.role].has(capability);
}

/** What the per-object rules need to know about a post. */
export interface PostAccess {
  readonly authorId: number;
  readonly status: string;
  /** For trashed posts: the status before trashing. */
  readonly statusBeforeTrash?: string | null;
}

const PUBLISHED = new Set(['publish', 'future']);

function effectiveStatus(post: PostAccess): string {
  return post.status === 'trash' ? (post.statusBeforeTrash ?? 'draft') : post.status;
}

function isOwn(actor: Actor, post: PostAccess): boolean {
  return actor.kind === 'user' && post.authorId === actor.id;
}

function mapPostCap(actor: Actor, post: PostAccess, verb: 'edit' | 'delete'): boolean {
  const status = effectiveStatus(post);
  const needed: Capability[] = [];
  if (isOwn(actor, post)) {
    needed.push(PUBLISHED.has(status) ? `${verb}_published_posts` : `${verb}_posts`);
  } else {
    needed.push(`${verb}_others_posts`);
    if (PUBLISHED.has(status)) needed.push(`${verb}_published_posts`);
    else if (status === 'private') needed.push(`${verb}_private_posts`);
  }
  return needed.every((c) => can(actor, c));
}

export function canEditPost(actor: Actor, post: PostAccess): boolean {
  return mapPostCap(actor, post, 'edit');
}

export function canDeletePost(actor: Actor, post: PostAccess): boolean {
  return mapPostCap(actor, post, 'delete');
}

/** Reading a single post: published is public; own posts; private needs read_private; others need edit. */
export function canReadPost(actor: Actor, post: PostAccess): boolean {
  if (post.status === 'publish') return true;
  if (actor.kind !== 'user') return false;
  if (post.status === 'trash') return canEditPost(actor, post);
  if (isOwn(actor, post)) return true;
  if (post.status === 'private') return can(actor, 'read_private_posts');
  return canEditPost(actor, post);
}

/** Managing event categories: `edit_tribe_events` and `publish_tribe_events` (author and up). */
export function canManageCategories(actor: Actor): boolean {
  return can(actor, 'edit_posts') && can(actor, 'publish_posts');
}

/** Managing tags: `edit_tribe_events` and `manage_categories` (editor and up). */
export function canManageTags(actor: Actor): boolean {
  return can(actor, 'edit_posts') && can(actor, 'manage_categories');
}
