/**
 * Application passwords. Generated ones are 24 random letters and digits (about 143 bits), so one SHA-256 with
 * a salt protects them and checks in microseconds. Ones a person chose (`--app-password`, `ADMIN_PASSWORD`) get
 * scrypt, a slow KDF; a successful scrypt check is remembered for the same stored row and password, so a client
 * pays it once per process, and a revoked row stops matching at once because rows are read on every request.
 */
import { createHash, randomBytes, randomInt, scrypt as scryptCallback, scryptSync, timingSafeEqual } from 'node:crypto';

export type Kdf = 'sha256' | 'scrypt';

export interface StoredPassword {
  readonly id: number;
  readonly kdf: string;
  readonly salt: string;
  readonly hash: string;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 } as const;

/** A new random application password, grouped in fours like WordPress shows them. */
export function generateAppPassword(): string {
  let out = '';
  for (let i = 0; i < 24; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out.replace(/(.{4})(?=.)/g, '$1 ');
}

function sha256(salt: string, password: string): string {
  return createHash('sha256').update(salt).update('\0').update(password).digest('hex');
}

function scrypt(salt: string, password: string): string {
  return scryptSync(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }).toString('hex');
}

/** scrypt on libuv's thread pool: a check (~50 ms of CPU) never holds the event loop, whoever sends a wrong password. */
function scryptOffLoop(salt: string, password: string): Promise<string> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }, (error, key) =>
      error ? reject(error) : resolve(key.toString('hex')),
    ),
  );
}

/** Generated passwords are stored without their grouping spaces; clients may send them either way. */
function normaliseGenerated(password: string): string {
  return password.replace(/\s+/g, '');
}

export function hashAppPassword(password: string, kdf: Kdf): { kdf: Kdf; salt: string; hash: string } {
  const salt = randomBytes(16).toString('hex');
  if (kdf === 'sha256') return { kdf, salt, hash: sha256(salt, normaliseGenerated(password)) };
  return { kdf, salt, hash: scrypt(salt, password) };
}

function equalHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

const verified = new Map<string, true>();
const VERIFIED_MAX = 2048;

export async function verifyAppPassword(password: string, stored: StoredPassword): Promise<boolean> {
  if (stored.kdf === 'sha256') return equalHex(sha256(stored.salt, normaliseGenerated(password)), stored.hash);
  if (stored.kdf !== 'scrypt') return false;
  const key = `${stored.id}:${stored.hash}:${createHash('sha256').update(password).digest('hex')}`;
  if (verified.has(key)) return true;
  const ok = equalHex(await scryptOffLoop(stored.salt, password), stored.hash);
  if (ok) {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value as string);
    verified.set(key, true);
  }
  return ok;
}
