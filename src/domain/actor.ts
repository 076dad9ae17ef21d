/** Who is calling: a known user with one role, or nobody. */
export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof ROLES)[number];

export type Actor = { readonly kind: 'anonymous' } | { readonly kind: 'user'; readonly id: number; readonly login: string; readonly role: Role };

export const ANONYMOUS: Actor = Object.freeze({ kind: 'anonymous' });

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isAuthenticated(actor: Actor): actor is Extract<Actor, { kind: 'user' }> {
  return actor.kind === 'user';
}
