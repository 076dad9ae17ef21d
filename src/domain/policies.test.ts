import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Actor, ROLES, type Role } from './actor.js';
import { can, canDeletePost, canEditPost, canManageCategories, canManageTags, canReadPost } from './policies.js';

const user = (role: Role, id = 10): Actor => ({ kind: 'user', id, login: role, role });
const anonymous: Actor = { kind: 'anonymous' };
const OWN = 10;
const OTHER = 99;

describe('policies', () => {
  it('grants the capability table of CONTRACT.md §7.1', () => {
    const table: Record<string, Role[]> = {
      edit_posts: ['administrator', 'editor', 'author', 'contributor'],
      publish_posts: ['administrator', 'editor', 'author'],
      edit_others_posts: ['administrator', 'editor'],
      read_private_posts: ['administrator', 'editor'],
      manage_categories: ['administrator', 'editor'],
      upload_files: ['administrator', 'editor', 'author'],
      unfiltered_html: ['administrator', 'editor'],
    };
    for (const [cap, roles] of Object.entries(table)) {
      for (const role of ROLES) assert.equal(can(user(role), cap as never), roles.includes(role), `${role} ${cap}`);
      assert.equal(can(anonymous, cap as never), false);
    }
  });

  it('lets contributors edit and delete their own drafts only', () => {
    const c = user('contributor');
    assert.equal(canEditPost(c, { authorId: OWN, status: 'draft' }), true);
    assert.equal(canDeletePost(c, { authorId: OWN, status: 'pending' }), true);
    assert.equal(canEditPost(c, { authorId: OWN, status: 'publish' }), false);
    assert.equal(canDeletePost(c, { authorId: OWN, status: 'future' }), false);
    assert.equal(canEditPost(c, { authorId: OTHER, status: 'draft' }), false);
  });

  it("lets authors edit their own published posts but not others'", () => {
    const a = user('author');
    assert.equal(canEditPost(a, { authorId: OWN, status: 'publish' }), true);
    assert.equal(canEditPost(a, { authorId: OTHER, status: 'publish' }), false);
    assert.equal(canDeletePost(a, { authorId: OTHER, status: 'draft' }), false);
  });

  it("lets editors edit others' posts of any status, including private", () => {
    const e = user('editor');
    for (const status of ['draft', 'pending', 'publish', 'future', 'private']) {
      assert.equal(canEditPost(e, { authorId: OTHER, status }), true, status);
    }
  });

  it('judges trashed posts by the status they had', () => {
    const c = user('contributor');
    assert.equal(canEditPost(c, { authorId: OWN, status: 'trash', statusBeforeTrash: 'draft' }), true);
    assert.equal(canEditPost(c, { authorId: OWN, status: 'trash', statusBeforeTrash: 'publish' }), false);
  });

  it("reads: published for all, own for their author, private for editors, others' drafts for editors", () => {
    assert.equal(canReadPost(anonymous, { authorId: OTHER, status: 'publish' }), true);
    for (const status of ['draft', 'pending', 'future', 'private', 'trash']) {
      assert.equal(canReadPost(anonymous, { authorId: OTHER, status }), false, status);
    }
    assert.equal(canReadPost(user('subscriber'), { authorId: OWN, status: 'draft' }), true);
    assert.equal(canReadPost(user('author'), { authorId: OTHER, status: 'private' }), false);
    assert.equal(canReadPost(user('editor'), { authorId: OTHER, status: 'private' }), true);
    assert.equal(canReadPost(user('contributor'), { authorId: OTHER, status: 'draft' }), false);
    assert.equal(canReadPost(user('editor'), { authorId: OTHER, status: 'draft' }), true);
  });

  it('manages categories from author up and tags from editor up', () => {
    assert.deepEqual(
      ROLES.filter((r) => canManageCategories(user(r))),
      ['administrator', 'editor', 'author'],
    );
    assert.deepEqual(
      ROLES.filter((r) => canManageTags(user(r))),
      ['administrator', 'editor'],
    );
    assert.equal(canManageCategories(anonymous), false);
  });
});
