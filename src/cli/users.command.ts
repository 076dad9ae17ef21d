import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../config/config.js';
import { type Actor, isRole, ROLES } from '../domain/actor.js';
import { NoSuchUserError, UserError, UserService } from '../domain/users/user.service.js';
import { openStorage, type Storage } from '../storage/storage.js';

export class UsageError extends Error {}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'] & {};

/** A command's flags and positionals (node:util parseArgs); a malformed command line is a UsageError. */
export function parseCommand<const O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, allowPositionals: true, options });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * The user a command acts as: `--as LOGIN`, else the first administrator. Undefined, with the reason printed
 * (`hint` says what to do when there is no administrator), when there is none: the command exits 67.
 */
export async function actingUser(storage: Storage, login: string | undefined, hint: string): Promise<(Actor & { kind: 'user' }) | undefined> {
  const user = login ? await storage.users.findByLogin(login) : (await storage.users.list()).find((u) => u.role === 'administrator');
  if (!user || !isRole(user.role)) {
    process.stderr.write(`calendar: ${login ? `no user ${login}` : `no administrator: ${hint}`}\n`);
    return undefined;
  }
  return { kind: 'user', id: user.id, login: user.login, role: user.role };
}

function printPassword(login: string, password: string, generated: boolean): void {
  if (generated) {
    process.stdout.write(`application password for ${login} (shown once, store it now):\n${password}\n`);
  } else {
    process.stdout.write(`application password for ${login} set\n`);
  }
}

/**
 * A secret given as `--…-file FILE` rather than on the command line, where every user of the machine can read it
 * in the process list: the file's text, trimmed. Undefined, with the reason printed, when it cannot be read (the
 * command then exits 66, EX_NOINPUT).
 */
export function secretFromFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    process.stderr.write(`calendar: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`);
    return undefined;
  }
}

/** `--NAME VALUE` or `--NAME-file FILE`, not both: the value, undefined when neither was given, null when the file could not be read. */
export function valueOrFile(values: Record<string, unknown>, name: string): string | undefined | null {
  const given = values[name] as string | undefined;
  const file = values[`${name}-file`] as string | undefined;
  if (given !== undefined && file !== undefined) throw new UsageError(`--${name} and --${name}-file are one or the other`);
  if (file === undefined) return given;
  return secretFromFile(file) ?? null;
}

export async function usersCommand(config: Config, argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const options = {
    role: { type: 'string' },
    email: { type: 'string' },
    'app-password': { type: 'string' },
    'app-password-file': { type: 'string' },
  } as const;
  const { values, positionals } = parseCommand(rest, options);
  const login = positionals[0];
  const needLogin = () => {
    if (login === undefined || positionals.length !== 1) throw new UsageError(`users ${sub} takes exactly one LOGIN`);
    return login;
  };
  // the command line is checked whole before the database is opened
  const allowed: Record<string, string[]> = {
    add: ['role', 'email', 'app-password', 'app-password-file'],
    'app-password': ['app-password', 'app-password-file'],
    'set-role': ['role'],
  };
  const stray = Object.keys(values).find((name) => !(allowed[sub ?? ''] ?? []).includes(name));
  if (stray !== undefined && sub !== undefined && ['add', 'list', 'remove', 'app-password', 'revoke', 'set-role'].includes(sub)) {
    throw new UsageError(`users ${sub} does not take --${stray}`);
  }
  if (sub === 'list' && positionals.length > 0) throw new UsageError('users list takes no arguments');
  if ((sub === 'add' || sub === 'set-role') && values.role !== undefined && !isRole(values.role))
    throw new UsageError(`role must be one of ${ROLES.join(', ')}`);
  if (sub === 'set-role' && values.role === undefined) throw new UsageError('users set-role needs --role ROLE');
  const chosen = valueOrFile(values, 'app-password');
  if (chosen === null) return 66;

  const storage = await openStorage(config.database, { poolSize: 1 });
  try {
    await storage.migrate();
    const users = new UserService(storage);
    switch (sub) {
      case 'add': {
        const l = needLogin();
        if (values.role === undefined) throw new UsageError('users add needs --role ROLE');
        const created = await users.add({ login: l, role: values.role, email: values.email, password: chosen });
        process.stdout.write(`created ${values.role} ${l}\n`);
        printPassword(l, created.password, created.generated);
        return 0;
      }
      case 'list': {
        const rows = await users.list();
        process.stdout.write(`${'ID'.padEnd(6)}${'LOGIN'.padEnd(24)}${'ROLE'.padEnd(15)}${'APP PASSWORDS'.padEnd(15)}EMAIL\n`);
        for (const u of rows) {
          process.stdout.write(`${String(u.id).padEnd(6)}${u.login.padEnd(24)}${u.role.padEnd(15)}${String(u.app_passwords).padEnd(15)}${u.email}\n`);
        }
        return 0;
      }
      case 'remove':
        await users.remove(needLogin());
        process.stdout.write(`removed ${login}\n`);
        return 0;
      case 'app-password': {
        const created = await users.addAppPassword(needLogin(), chosen);
        printPassword(created.login, created.password, created.generated);
        return 0;
      }
      case 'set-role': {
        const l = needLogin();
        const before = await users.setRole(l, values.role as string);
        process.stdout.write(before === values.role ? `${l} is already ${before}\n` : `${l}: ${before} → ${values.role}\n`);
        return 0;
      }
      case 'revoke': {
        const n = await users.revoke(needLogin());
        process.stdout.write(`revoked ${n} application password(s) of ${login}\n`);
        return 0;
      }
      default:
        throw new UsageError(sub === undefined ? 'users needs a subcommand' : `unknown users subcommand "${sub}"`);
    }
  } catch (error) {
    if (error instanceof UserError) {
      process.stderr.write(`calendar: ${error.message}\n`);
      return error instanceof NoSuchUserError ? 67 : 1;
    }
    throw error;
  } finally {
    await storage.close();
  }
}
