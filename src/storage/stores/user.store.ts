import type { Kysely } from 'kysely';
import type { AppPasswordRow, Database, UserRow } from '../database.js';
import { isStorableId } from './ids.js';

export interface NewUser {
  login: string;
  email: string;
  displayName: string;
  role: string;
  now: string;
}

export interface NewAppPassword {
  name: string;
  kdf: string;
  salt: string;
  hash: string;
  now: string;
}

export interface Credential {
  userId: number;
  login: string;
  role: string;
  passwordId: number;
  kdf: string;
  salt: string;
  hash: string;
}

/** Users and their application passwords. */
export class UserStore {
  constructor(private readonly db: Kysely<Database>) {}

  async create(user: NewUser): Promise<UserRow> {
    return this.db
      .insertInto('users')
      .values({
        login: user.login,
        email: user.email,
        display_name: user.displayName,
        role: user.role,
        created_at: user.now,
        modified_at: user.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  findById(id: number): Promise<UserRow | undefined> {
    if (!isStorableId(id)) return Promise.resolve(undefined);
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByLogin(login: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirst();
  }

  /**
   * Users a new login and e-mail address would be confused with, as WordPress refuses them (wp_insert_user under
   * MySQL's case-insensitive collation): the login in another case, the e-mail address another's, or a login that
   * is another's e-mail address (a login with `@` is also looked up by e-mail when authenticating).
   */
  confusable(login: string, email: string): Promise<Pick<UserRow, 'login' | 'email'>[]> {
    const folded = login.toLowerCase();
    const mail = email.toLowerCase();
    return this.db
      .selectFrom('users')
      .select(['login', 'email'])
      .where((eb) =>
        eb.or([
          eb(eb.fn('lower', ['login']), '=', folded),
          ...(login.includes('@') ? [eb(eb.fn('lower', ['email']), '=', folded)] : []),
          ...(mail !== '' ? [eb(eb.fn('lower', ['email']), '=', mail)] : []),
        ]),
      )
      .orderBy('id')
      .execute();
  }

  list(): Promise<(UserRow & { app_passwords: number })[]> {
    return this.db
      .selectFrom('users')
      .selectAll('users')
      .select((eb) =>
        eb
          .selectFrom('app_passwords')
          .whereRef('app_passwords.user_id', '=', 'users.id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('app_passwords'),
      )
      .orderBy('id')
      .execute() as Promise<(UserRow & { app_passwords: number })[]>;
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async exists(id: number): Promise<boolean> {
    if (!isStorableId(id)) return false;
    return (await this.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  /** Removes the user; their posts stay, with no author. Returns false when there was no such user. */
  async remove(id: number): Promise<boolean> {
    await this.db
      .updateTable('posts')
      .set((eb) => ({ author_id: 0, version: eb('version', '+', 1) }))
      .where('author_id', '=', id)
      .execute();
    const result = await this.db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async setRole(id: number, role: string): Promise<void> {
    await this.db.updateTable('users').set({ role }).where('id', '=', id).execute();
  }

  async addAppPassword(userId: number, password: NewAppPassword): Promise<number> {
    const row = await this.db
      .insertInto('app_passwords')
      .values({
        user_id: userId,
        name: password.name,
        kdf: password.kdf,
        salt: password.salt,
        hash: password.hash,
        created_at: password.now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  appPasswords(userId: number): Promise<AppPasswordRow[]> {
    return this.db.selectFrom('app_passwords').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  }

  async revokeAppPasswords(userId: number): Promise<number> {
    const result = await this.db.deleteFrom('app_passwords').where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Every application password of a login, with the user's role: one indexed query per authentication. */
  /**
   * The application passwords of the user a login names: the login as written; else, as WordPress finds them
   * (`get_user_by('login')` under MySQL's case-insensitive collation, then by e-mail when the name is one —
   * wp_authenticate_application_password), the login in any case or the e-mail address.
   */
  async credentials(login: string): Promise<Credential[]> {
    const select = () =>
      this.db
        .selectFrom('users')
        .innerJoin('app_passwords', 'app_passwords.user_id', 'users.id')
        .select([
          'users.id as userId',
          'users.login as login',
          'users.role as role',
          'app_passwords.id as passwordId',
          'app_passwords.kdf as kdf',
          'app_passwords.salt as salt',
          'app_passwords.hash as hash',
        ]);
    const exact = await select().where('users.login', '=', login).execute();
    if (exact.length > 0) return exact;
    const folded = login.toLowerCase();
    return select()
      .where((eb) =>
        eb.or([eb(eb.fn('lower', ['users.login']), '=', folded), ...(login.includes('@') ? [eb(eb.fn('lower', ['users.email']), '=', folded)] : [])]),
      )
      .execute();
  }
}
