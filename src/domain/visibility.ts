/**
 * What a caller may see, as one rule: which posts a caller may read is `canReadPost` (policies.ts); lists,
 * totals, embedded links, `only_with_upcoming` and the response cache's key all take it from here, so they
 * cannot disagree with single reads. `listVisibility` derives, from the policy itself, which statuses the caller
 * may read on anyone's posts and on their own; `visiblePosts` writes that as SQL. A test checks the SQL against
 * the policy for every status, ownership and role.
 *
 * (This is the one domain module that writes SQL: the rule and its SQL form belong together.)
 */
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Actor } from './actor.js';
import { canReadPost } from './policies.js';
import { STATUSES } from './posts/post.js';

/** The statuses readable under a rule; trashed posts are judged by the status they had (`trashedFrom`). */
export interface StatusRule {
  readonly statuses: readonly string[];
  readonly trashedFrom: readonly string[];
}

export interface Visibility {
  /** Callers with the same key see exactly the same posts (the response cache shares answers between them). */
  readonly key: string;
  /** What the caller may read of anyone's posts. */
  readonly anyone: StatusRule;
  /** What more the caller may read of their own posts. */
  readonly own?: { readonly userId: number; readonly rule: StatusRule };
}

const LIVE = STATUSES.filter((s) => s !== 'trash');

function ruleFor(actor: Actor, authorId: number): StatusRule {
  return {
    statuses: LIVE.filter((status) => canReadPost(actor, { authorId, status })),
    trashedFrom: LIVE.filter((before) => canReadPost(actor, { authorId, status: 'trash', statusBeforeTrash: before })),
  };
}

const covers = (rule: StatusRule, other: StatusRule) =>
  other.statuses.every((s) => rule.statuses.includes(s)) && other.trashedFrom.every((s) => rule.trashedFrom.includes(s));

const PUBLIC: Visibility = { key: 'public', anyone: ruleFor({ kind: 'anonymous' }, -1) };
/** The rules depend on the role alone (and the user's id for their own posts): derived once per role. */
const byRole = new Map<string, { anyone: StatusRule; own?: StatusRule }>();

/** What this caller may read, derived from `canReadPost`. */
export function listVisibility(actor: Actor): Visibility {
  if (actor.kind !== 'user') return PUBLIC;
  let rules = byRole.get(actor.role);
  if (!rules) {
    // a stand-in user of the role: ownership is all that differs between users of one role
    const probe: Actor = { ...actor, id: 1 };
    const anyone = ruleFor(probe, -1);
    const own = ruleFor(probe, 1);
    rules = covers(anyone, own) ? { anyone } : { anyone, own };
    byRole.set(actor.role, rules);
  }
  if (!rules.own) return { key: `role:${actor.role}`, anyone: rules.anyone };
  return { key: `user:${actor.id}`, anyone: rules.anyone, own: { userId: actor.id, rule: rules.own } };
}

/** Whether a rule is "every status" (no condition needed). */
const isEverything = (rule: StatusRule) => rule.statuses.length === LIVE.length && rule.trashedFrom.length === LIVE.length;

/** Whether the rule can be checked on a status column alone (no `status_before_trash`, no author). */
export function statusesOnly(v: Visibility): readonly string[] | 'all' | undefined {
  if (v.own) return undefined;
  if (isEverything(v.anyone)) return 'all';
  if (v.anyone.trashedFrom.length === 0) return v.anyone.statuses;
  if (v.anyone.trashedFrom.length === LIVE.length) return [...v.anyone.statuses, 'trash'];
  return undefined;
}

/** The columns the rule reads, as `table.column` references. */
export interface PostColumns {
  readonly status: string;
  readonly authorId: string;
  readonly statusBeforeTrash: string;
}

/** Any query's expression builder: the rule names its columns itself (PostColumns), whatever the tables. */
// biome-ignore lint/suspicious/noExplicitAny: the rule serves queries over any tables; columns are named by `PostColumns`
type AnyBuilder = ExpressionBuilder<any, any>;

function ruleSql(eb: AnyBuilder, rule: StatusRule, c: PostColumns, literal: boolean): Expression<SqlBool> {
  const status = sql.ref(c.status);
  // (statuses as literals in the text when asked: a role's rule is one of a few; see visiblePosts)
  const v = (s: string) => (literal ? sql.lit(s) : s);
  const parts: Expression<SqlBool>[] = [];
  if (rule.statuses.length === LIVE.length) parts.push(eb(status, '<>', v('trash')));
  else if (rule.statuses.length > 0)
    parts.push(rule.statuses.length === 1 ? eb(status, '=', v(rule.statuses[0])) : eb(status, 'in', rule.statuses.map(v)));
  if (rule.trashedFrom.length === LIVE.length) parts.push(eb(status, '=', v('trash')));
  else if (rule.trashedFrom.length > 0) {
    // WordPress judges a trashed post without a remembered status as a draft
    const before = sql<string>`coalesce(${sql.ref(c.statusBeforeTrash)}, 'draft')`;
    parts.push(eb.and([eb(status, '=', v('trash')), eb(before, 'in', rule.trashedFrom.map(v))]));
  }
  return parts.length === 0 ? sql<SqlBool>`1 = 0` : parts.length === 1 ? parts[0] : eb.or(parts);
}

/**
 * The rule as SQL, or undefined when the caller may read everything. `literal`: its statuses written into the
 * statement's text rather than sent as parameters — for a statement whose PostgreSQL generic plan must know how
 * many rows they leave (the first page of a list: EventStore.page); not for the others, whose generic plans were
 * chosen with parameters (a filtered list's count went from 3 to 12 ms with literals).
 */
export function visiblePosts(eb: AnyBuilder, v: Visibility, c: PostColumns, literal = false): Expression<SqlBool> | undefined {
  if (!v.own && isEverything(v.anyone)) return undefined;
  const anyone = ruleSql(eb, v.anyone, c, literal);
  if (!v.own) return anyone;
  const own = isEverything(v.own.rule) ? undefined : ruleSql(eb, v.own.rule, c, literal);
  const mine = eb(sql.ref(c.authorId), '=', v.own.userId);
  return eb.or([anyone, own ? eb.and([mine, own]) : mine]);
}
