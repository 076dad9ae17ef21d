import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Actor, ANONYMOUS, ROLES, type Role } from './actor.js';
import { canReadPost } from './policies.js';
import { STATUSES } from './posts/post.js';
import { listVisibility, type StatusRule, statusesOnly } from './visibility.js';

const user = (role: Role, id = 10): Actor => ({ kind: 'user', id, login: role, role });
const LIVE = STATUSES.filter((s) => s !== 'trash');

/** Whether a post is readable under a visibility, judged the way the SQL is (see visiblePosts). */
function readable(rule: StatusRule, status: string, before: string | null): boolean {
  return status === 'trash' ? rule.trashedFrom.includes(before ?? 'draft') : rule.statuses.includes(status);
}

describe('list visibility, derived from canReadPost', () => {
  it('agrees with canReadPost for every role, status, status before the trash and ownership', () => {
    for (const actor of [ANONYMOUS, ...ROLES.map((r) => user(r))]) {
      const v = listVisibility(actor);
      for (const own of [true, false]) {
        const authorId = own && actor.kind === 'user' ? actor.id : 999;
        for (const status of STATUSES) {
          for (const before of status === 'trash' ? [...LIVE, null] : [null]) {
            const expected = canReadPost(actor, { authorId, status, statusBeforeTrash: before });
            const mine = v.own !== undefined && authorId === v.own.userId;
            const got = readable(v.anyone, status, before) || (mine && readable(v.own!.rule, status, before));
            assert.equal(got, expected, `${actor.kind === 'user' ? actor.role : 'anonymous'} ${own ? 'own' : "others'"} ${status} ${before ?? ''}`);
          }
        }
      }
    }
  });

  it('lets anonymous callers read published posts only, by status alone', () => {
    const v = listVisibility(ANONYMOUS);
    assert.equal(v.key, 'public');
    assert.deepEqual(statusesOnly(v), ['publish']);
  });

  it('gives editors and administrators everything, shared per role, with no condition', () => {
    for (const role of ['editor', 'administrator'] as const) {
      const v = listVisibility(user(role));
      assert.equal(v.key, `role:${role}`);
      assert.equal(statusesOnly(v), 'all');
    }
  });

  it('gives authors, contributors and subscribers their own posts beside the published ones, per user', () => {
    for (const role of ['author', 'contributor', 'subscriber'] as const) {
      const v = listVisibility(user(role, 7));
      assert.equal(v.key, 'user:7');
      assert.equal(v.own?.userId, 7);
      assert.deepEqual(v.anyone.statuses, ['publish']);
      assert.equal(statusesOnly(v), undefined, 'needs the author column');
    }
    // a contributor may not read their own post trashed after someone published it (they could not edit it)
    assert.equal(listVisibility(user('contributor')).own!.rule.trashedFrom.includes('publish'), false);
    assert.equal(listVisibility(user('author')).own!.rule.trashedFrom.includes('publish'), true);
  });
});
