/**
 * Users, roles and application passwords: what the CLI manages and what authentication asks.
 */
import { createHash } from 'node:crypto';
import { StorageError } from '../../storage/dialects/dialect.js';
import type { Storage } from '../../storage/storage.js';
import { nowUtc } from '../../time/clock.js';
import { type Actor, isRole, ROLES, type Role } from '../actor.js';
import { generateAppPassword, hashAppPassword, type Kdf, verifyAppPassword } from './passwords.js';

export class UserError extends Error {
  override name = 'UserError';
}

/** The login names no user (the CLI exits 67 on it). */
export class NoSuchUserError extends UserError {
  override name = 'NoSuchUserError';
  constructor(login: string) {
    super(`no user ${login}`);
  }
}

export const LOGIN_PATTERN = /^[A-Za-z0-9._@-]{1,60}$/;

export interface CreatedPassword {
  readonly login: string;
  /** The password in clear: shown once, never stored. */
  readonly password: string;
  readonly generated: boolean;
}

export class UserService {
  constructor(private readonly storage: Storage) {}

  async add(input: { login: string; role: string; email?: string; password?: string }): Promise<CreatedPassword> {
    if (!LOGIN_PATTERN.test(input.login)) {
      throw new UserError('login may hold only letters, digits and . _ @ - (at most 60 characters)');
    }
    if (!isRole(input.role)) throw new UserError(`role must be one of ${ROLES.join(', ')}`);
    if (input.email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(input.email)) {
      throw new UserError(`not an e-mail address: ${input.email}`);
    }
    checkChosenPassword(input.password);
    const now = nowUtc();
    try {
      return await this.storage.transaction(async (tx) => {
        if (await tx.users.findByLogin(input.login)) throw new UserError(`user ${input.login} already exists`);
        const email = input.email ?? '';
        for (const other of await tx.users.confusable(input.login, email)) {
          if (other.login.toLowerCase() === input.login.toLowerCase())
            throw new UserError(`user ${other.login} already exists (logins differ by more than case)`);
          if (email !== '' && other.email.toLowerCase() === email.toLowerCase())
            throw new UserError(`${email} is already the e-mail address of ${other.login}`);
          throw new UserError(`${input.login} is the e-mail address of ${other.login}, which signs in with it too`);
        }
        const user = await tx.users.create({
          login: input.login,
          email: input.email ?? '',
          displayName: input.login,
          role: input.role,
          now,
        });
        return addPassword(tx, user.id, user.login, input.password);
      });
    } catch (error) {
      if (error instanceof StorageError && error.kind === 'unique') {
        throw new UserError(`user ${input.login} already exists`);
      }
      throw error;
    }
  }

  /** Whether a user with this id exists (`author` arguments). */
  exists(id: number): Promise<boolean> {
    return this.storage.users.exists(id);
  }

  async addAppPassword(login: string, password?: string): Promise<CreatedPassword> {
    checkChosenPassword(password);
    return this.storage.transaction(async (tx) => {
      const user = await tx.users.findByLogin(login);
      if (!user) throw new NoSuchUserError(login);
      return addPassword(tx, user.id, user.login, password);
    });
  }

  /**
   * Gives a user another role (WordPress' set_role), answering the one they had. Their next request is answered
   * with the new role's rights: the write moves the credentials version, which every remembered credential and a
   * webhook endpoint's owner are checked against; a sync token they started before says 410 (sync.service.ts).
   */
  async setRole(login: string, role: string): Promise<string> {
    if (!isRole(role)) throw new UserError(`role must be one of ${ROLES.join(', ')}`);
    return this.storage.transaction(async (tx) => {
      const user = await tx.users.findByLogin(login);
      if (!user) throw new NoSuchUserError(login);
      if (user.role !== role) await tx.users.setRole(user.id, role);
      return user.role;
    });
  }

  async revoke(login: string): Promise<number> {
    return this.storage.transaction(async (tx) => {
      const user = await tx.users.findByLogin(login);
      if (!user) throw new NoSuchUserError(login);
      return tx.users.revokeAppPasswords(user.id);
    });
  }

  async remove(login: string): Promise<void> {
    await this.storage.transaction(async (tx) => {
      const user = await tx.users.findByLogin(login);
      if (!user) throw new NoSuchUserError(login);
      await tx.users.remove(user.id);
    });
  }

  list() {
    return this.storage.users.list();
  }

  /** On an empty database, creates the configured first administrator. Returns true when it did. */
  async ensureAdmin(login: string | undefined, password: string | undefined): Promise<boolean> {
    if (login === undefined || password === undefined) return false;
    if ((await this.storage.users.count()) > 0) return false;
    try {
      await this.add({ login, role: 'administrator', password });
      return true;
    } catch (error) {
      // another process created it first
      if (error instanceof UserError && (await this.storage.users.findByLogin(login))) return false;
      throw error;
    }
  }

  /**
   * The actor for HTTP Basic credentials, or undefined when they do not match (an unknown login and a wrong
   * password are indistinguishable to the caller).
   */
  async authenticate(login: string, password: string, credentialsVersion?: number): Promise<Actor | undefined> {
    if (login === '' || password === '' || login.length > 60 || password.length > 256) return undefined;
    // A verified pair is remembered while no user or application password was written since (a revoked
    // password or a changed role moves the credentials version), so a busy client costs one version read, not a
    // query and a hash.
    const key = credentialsVersion === undefined ? undefined : `${login}\n${createHash('sha256').update(password).digest('base64')}`;
    if (key !== undefined) {
      const hit = this.verified.get(key);
      if (hit && hit.version === credentialsVersion) return hit.actor;
    }
    const credentials = await this.storage.users.credentials(login);
    for (const c of credentials) {
      if (await verifyAppPassword(password, { id: c.passwordId, kdf: c.kdf, salt: c.salt, hash: c.hash })) {
        if (!isRole(c.role)) return undefined;
        const actor: Actor = { kind: 'user', id: c.userId, login: c.login, role: c.role as Role };
        if (key !== undefined) {
          if (this.verified.size >= 10_000) this.verified.clear();
          if (credentialsVersion !== undefined) this.verified.set(key, { version: credentialsVersion, actor });
        }
        return actor;
      }
    }
    return undefined;
  }

  private readonly verified = new Map<string, { version: number; actor: Actor }>();
}

function checkChosenPassword(password: string | undefined): void {
  if (password !== undefined && (password.length < 8 || password.length > 256)) {
    throw new UserError('an application password must be 8 to 256 characters long');
  }
}

async function addPassword(tx: Storage, userId: number, login: string, chosen?: string): Promise<CreatedPassword> {
  const password = chosen ?? generateAppPassword();
  const kdf: Kdf = chosen === undefined ? 'sha256' : 'scrypt';
  const hashed = hashAppPassword(password, kdf);
  await tx.users.addAppPassword(userId, { name: chosen === undefined ? 'generated' : 'chosen', ...hashed, now: nowUtc() });
  return { login, password, generated: chosen === undefined };
}
