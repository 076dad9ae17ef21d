/**
 * `calendar webhooks add|list|remove|test|deliveries`: the same WebhookService as `/webhooks`, acting as an
 * administrator (`--as LOGIN`, default the first administrator), on the service's database. The running
 * service sends what the change log holds; this command only manages endpoints and reads the log.
 */
import type { Config } from '../config/config.js';
import type { Actor } from '../domain/actor.js';
import { ApiError } from '../domain/errors.js';
import { createServices } from '../domain/services.js';
import { isWebhookSecret, type WebhookFilter } from '../domain/webhooks/webhook.js';
import type { Delivery, Endpoint, PayloadKind } from '../domain/webhooks/webhook.service.js';
import { openStorage } from '../storage/storage.js';
import type { DeliveryState } from '../storage/stores/webhook.store.js';
import { actingUser, parseCommand, secretFromFile, UsageError } from './users.command.js';

const STATES: readonly DeliveryState[] = ['pending', 'held', 'succeeded', 'failed'];

/** A positive integer argument, or a usage error naming it. */
function positiveInt(value: string | undefined, name: string): number {
  if (value === undefined || !/^[1-9]\d{0,9}$/.test(value)) throw new UsageError(`${name} is a positive integer`);
  return Number(value);
}

const iso = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

function printEndpoint(e: Endpoint): void {
  const filter = e.filter
    ? [
        e.filter.categories?.length ? `categories ${e.filter.categories.join(',')}` : '',
        e.filter.venue !== undefined ? `venue ${e.filter.venue}` : '',
        e.filter.organizer !== undefined ? `organizer ${e.filter.organizer}` : '',
      ]
        .filter(Boolean)
        .join('; ')
    : '';
  const lines: [string, string][] = [
    ['id', String(e.id)],
    ['url', e.url],
    ['description', e.description],
    ['event types', e.eventTypes.join(', ')],
    ['filter', filter || '-'],
    ['payload', e.payload],
    ['active', e.active ? 'yes' : `no (${e.disabledReason ?? 'disabled'})`],
    ['owner', String(e.ownerId)],
  ];
  for (const [k, v] of lines) process.stdout.write(`  ${k.padEnd(12)} ${v}\n`);
}

function printDeliveries(items: readonly Delivery[]): void {
  process.stdout.write(
    `${'ID'.padEnd(8)}${'STATE'.padEnd(11)}${'TYPE'.padEnd(28)}${'SEQ'.padEnd(8)}${'ATTEMPTS'.padEnd(10)}${'LAST'.padEnd(7)}${'CREATED'.padEnd(22)}NEXT / ERROR\n`,
  );
  for (const d of items) {
    const tail = d.state === 'pending' ? `next ${iso(d.nextAttemptMs)}` : (d.lastError ?? '');
    process.stdout.write(
      `${String(d.id).padEnd(8)}${d.state.padEnd(11)}${d.type.padEnd(28)}${String(d.seq).padEnd(8)}${String(d.attempts).padEnd(10)}${String(d.lastStatus ?? '-').padEnd(7)}${iso(d.createdMs).padEnd(22)}${tail}\n`,
    );
  }
}

export async function webhooksCommand(config: Config, argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const options = {
    as: { type: 'string' },
    types: { type: 'string' },
    description: { type: 'string' },
    payload: { type: 'string' },
    category: { type: 'string', multiple: true },
    venue: { type: 'string' },
    organizer: { type: 'string' },
    status: { type: 'string' },
    limit: { type: 'string' },
    'secret-file': { type: 'string' },
  } as const;
  const { values, positionals } = parseCommand(rest, options);
  const one = (name: string): string => {
    if (positionals.length !== 1) throw new UsageError(`webhooks ${sub} takes exactly one ${name}`);
    return positionals[0];
  };
  // the command line is checked whole before the database is opened
  let run: (actor: Actor, services: ReturnType<typeof createServices>) => Promise<number>;
  switch (sub) {
    case 'add': {
      const url = one('URL');
      const payload = values.payload ?? 'thin';
      if (payload !== 'thin' && payload !== 'full') throw new UsageError('--payload is thin or full');
      const filter: WebhookFilter = {
        ...(values.category ? { categories: values.category.flatMap((c) => c.split(',')).map((c) => positiveInt(c.trim(), '--category')) } : {}),
        ...(values.venue !== undefined ? { venue: positiveInt(values.venue, '--venue') } : {}),
        ...(values.organizer !== undefined ? { organizer: positiveInt(values.organizer, '--organizer') } : {}),
      };
      const eventTypes = values.types?.split(',').map((t) => t.trim());
      // a secret the receiver already holds (it is checked with a signed webhook.test first), read from a file so
      // that it is not in the process list
      let secret: string | undefined;
      if (values['secret-file'] !== undefined) {
        secret = secretFromFile(values['secret-file']);
        if (secret === undefined) return 66;
        if (!isWebhookSecret(secret)) throw new UsageError('--secret-file holds whsec_ followed by 24 to 64 bytes in base64');
      }
      run = async (actor, services) => {
        const created = await services.webhooks.create(actor, {
          url,
          description: values.description,
          eventTypes,
          filter: Object.keys(filter).length > 0 ? filter : null,
          payload: payload as PayloadKind,
          secret,
        });
        process.stdout.write(`created webhook endpoint ${created.id}\n`);
        printEndpoint(created);
        if (secret === undefined) process.stdout.write(`signing secret (shown once, store it now):\n${created.secret}\n`);
        else process.stdout.write(`signing secret: the one in ${values['secret-file']}\n`);
        return 0;
      };
      break;
    }
    case 'list':
      if (positionals.length > 0) throw new UsageError('webhooks list takes no arguments');
      run = async (actor, services) => {
        const rows = await services.webhooks.list(actor);
        process.stdout.write(`${'ID'.padEnd(6)}${'ACTIVE'.padEnd(16)}${'PAYLOAD'.padEnd(9)}${'TYPES'.padEnd(32)}URL\n`);
        for (const e of rows) {
          const active = e.active ? 'yes' : `no (${e.disabledReason ?? 'disabled'})`;
          process.stdout.write(`${String(e.id).padEnd(6)}${active.padEnd(16)}${e.payload.padEnd(9)}${e.eventTypes.join(',').padEnd(32)}${e.url}\n`);
        }
        return 0;
      };
      break;
    case 'remove': {
      const id = positiveInt(one('ID'), 'ID');
      run = async (actor, services) => {
        const removed = await services.webhooks.remove(actor, id);
        process.stdout.write(`removed webhook endpoint ${removed.id} (${removed.url})\n`);
        return 0;
      };
      break;
    }
    case 'test': {
      const id = positiveInt(one('ID'), 'ID');
      run = async (actor, services) => {
        const d = await services.webhooks.test(actor, id);
        const a = d.log[0];
        const outcome = a?.status !== null && a?.status !== undefined ? `HTTP ${a.status}` : (a?.error ?? d.lastError ?? 'no answer');
        process.stdout.write(`webhook.test to endpoint ${id}: ${d.state} (${outcome}, ${a?.durationMs ?? 0} ms)\n`);
        if (a?.response) process.stdout.write(`response: ${a.response.slice(0, 200)}\n`);
        return d.state === 'succeeded' ? 0 : 1;
      };
      break;
    }
    case 'deliveries': {
      const id = positiveInt(one('ID'), 'ID');
      const state = values.status as DeliveryState | undefined;
      if (state !== undefined && !STATES.includes(state)) throw new UsageError(`--status is ${STATES.join(', ')}`);
      const limit = values.limit === undefined ? 20 : positiveInt(values.limit, '--limit');
      if (limit > 100) throw new UsageError('--limit is at most 100');
      run = async (actor, services) => {
        const page = await services.webhooks.deliveries(actor, id, { state, limit });
        printDeliveries(page.items);
        if (page.nextBeforeId !== undefined) process.stdout.write(`(more: GET /webhooks/${id}/deliveries?page_token=d${page.nextBeforeId})\n`);
        return 0;
      };
      break;
    }
    default:
      throw new UsageError(sub === undefined ? 'webhooks needs a subcommand' : `unknown webhooks subcommand "${sub}"`);
  }

  const storage = await openStorage(config.database, { poolSize: 2 });
  try {
    await storage.migrate();
    const services = createServices(config, storage);
    const actor = await actingUser(storage, values.as, 'add one with `calendar users add`');
    return actor ? await run(actor, services) : 67;
  } catch (error) {
    if (error instanceof ApiError) {
      // with the reason of each refused parameter (`data.params`), which the message only names
      const params = error.extra.params;
      const reasons =
        params !== null && typeof params === 'object' && !Array.isArray(params)
          ? Object.entries(params as Record<string, unknown>).map(([name, why]) => `\n  ${name}: ${String(why)}`)
          : [];
      process.stderr.write(`calendar: ${error.message} (${error.code})${reasons.join('')}\n`);
      return 1;
    }
    throw error;
  } finally {
    await storage.close();
  }
}
