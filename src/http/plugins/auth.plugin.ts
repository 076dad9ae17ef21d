/**
 * Credentials → actor. HTTP Basic with a login and an application password (what clients of the original send).
 * No Authorization header: anonymous. Anything else that does not verify: 401, never a silent anonymous
 * fallback (DECISIONS.md).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Actor, ANONYMOUS } from '../../domain/actor.js';
import { errors } from '../../domain/errors.js';
import type { UserService } from '../../domain/users/user.service.js';
import type { Storage } from '../../storage/storage.js';
import './cache.plugin.js';

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor;
  }
}

export function parseBasic(header: string): { login: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export async function authenticate(request: FastifyRequest, users: UserService, storage: Storage): Promise<Actor> {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') return ANONYMOUS;
  // (the Basic scheme with nothing after it is Basic with no credentials: wrong ones, not another scheme)
  if (!/^Basic(\s|$)/i.test(header)) throw errors.unsupportedAuthorization();
  const credentials = parseBasic(header);
  if (!credentials) throw errors.incorrectPassword();
  const versions = await storage.versions();
  request.cacheVersion = versions.data;
  const actor = await users.authenticate(credentials.login, credentials.password, versions.credentials);
  if (!actor) throw errors.incorrectPassword();
  return actor;
}

export function registerAuth(app: FastifyInstance, users: UserService, storage: Storage): void {
  app.decorateRequest('actor', undefined as unknown as { getter: () => Actor });
  app.addHook('onRequest', async (request) => {
    request.actor = ANONYMOUS;
    request.actor = await authenticate(request, users, storage);
  });
}
