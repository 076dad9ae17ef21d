/**
 * `node dist/bench/sync.js`: how long a client takes to sync (issue 16's target: a sync of 10,000 changed events
 * in under 2 s). Per database: a site of `--events` events (bench/seed.ts: ±2 years, drafts, hidden events,
 * venues, organizers, terms), `calendar serve` on it as a user runs it, and an administrator's client (an
 * application password) that pages with `per_page=--per-page` over HTTP, one page after the other:
 *
 *  1. a full sync (`sync_token=start`) to its last page;
 *  2. every event changes: the bench writes a change row for each of them and touches their post (one
 *     statement each, beside the service: what 10,000 edits leave in the change log, without 10,000 requests);
 *  3. the next sync from the full sync's token: every event comes again, as an object or, for what is hidden
 *     from listings, a tombstone.
 *
 * Three rounds (each round's changes are new ones). Wall-clock time from the first request to the last page's
 * last byte, the pages, the items, and the p50 of a page.
 *
 * Options: --dialects sqlite,postgres --events N (10000) --per-page N (500) --rounds R (3) --out FILE
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { Storage } from '../src/storage/storage.js';
import { openStorage } from '../src/storage/storage.js';
import { locateDatabase, writeMeasured } from './artefacts.js';
import { killChildren, startService } from './pages-measure.js';
import { type Spread, spread } from './report.js';
import { prepareSite } from './seed.js';

const { values } = parseArgs({
  options: Object.fromEntries(['dialects', 'events', 'per-page', 'rounds', 'out'].map((name) => [name, { type: 'string' as const }])),
});
const o = {
  dialects: (values.dialects ?? 'sqlite,postgres').split(','),
  events: Number(values.events ?? 10_000),
  perPage: Number(values['per-page'] ?? 500),
  rounds: Number(values.rounds ?? 3),
};
const LOGIN = 'bench-sync-admin';
const PASSWORD = 'bench-sync-admin-password';
const AUTH = { authorization: `Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}` };

interface SyncRun {
  ms: number;
  pages: number;
  objects: number;
  tombstones: number;
  pageP50Ms: number;
}

/** Pages a sync from `token` to its end; answers the run and the next token. */
async function follow(base: string, token: string): Promise<{ run: SyncRun; token: string }> {
  const t0 = performance.now();
  const pageMs: number[] = [];
  let query = `sync_token=${encodeURIComponent(token)}&per_page=${o.perPage}`;
  let objects = 0;
  let tombstones = 0;
  for (;;) {
    const p0 = performance.now();
    const res = await fetch(`${base}/calendar/events/v1/events?${query}`, { headers: AUTH });
    const body = (await res.json()) as { events: { removed?: unknown }[]; next_page_token?: string; next_sync_token?: string };
    pageMs.push(performance.now() - p0);
    if (res.status !== 200) throw new Error(`sync answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    for (const item of body.events) item.removed === undefined ? objects++ : tombstones++;
    if (body.next_sync_token) {
      const ms = performance.now() - t0;
      pageMs.sort((a, b) => a - b);
      return {
        run: { ms, pages: pageMs.length, objects, tombstones, pageP50Ms: pageMs[Math.floor(pageMs.length / 2)] },
        token: body.next_sync_token,
      };
    }
    query = `page_token=${encodeURIComponent(body.next_page_token ?? '')}&per_page=${o.perPage}`;
  }
}

/** What `n` edits of every event leave behind: their posts touched, one change row each. */
async function changeEveryEvent(storage: Storage, round: number): Promise<number> {
  const at = new Date().toISOString().slice(0, 19).replace('T', ' ');
  await storage.transaction(async (tx) => {
    await sql`update posts set modified_utc = ${at}, title = ${`Round ${round} `} || title where type = 'event'`.execute(tx.db);
    await sql`insert into changes (resource_type, resource_id, op, occurred_at)
      select 'event', post_id, 'update', ${at} from events where kind <> 'occurrence'`.execute(tx.db);
  });
  const row = await storage.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('kind', '<>', 'occurrence')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const results: Record<string, unknown> = {};
for (const dialect of o.dialects) {
  const where = locateDatabase(dialect, 'sync');
  const { databaseUrl, config } = where;
  const storage = await openStorage(config);
  try {
    await prepareSite(storage, dialect, o.events, { login: LOGIN, password: PASSWORD });
    const service = await startService(databaseUrl, {});
    const full: SyncRun[] = [];
    const changes: SyncRun[] = [];
    let changed = 0;
    try {
      for (let round = 1; round <= o.rounds; round++) {
        const first = await follow(service.base, 'start');
        full.push(first.run);
        changed = await changeEveryEvent(storage, round);
        const next = await follow(service.base, first.token);
        changes.push(next.run);
        if (next.run.objects + next.run.tombstones !== changed) {
          throw new Error(`the sync after ${changed} changes brought ${next.run.objects} objects and ${next.run.tombstones} tombstones`);
        }
        const line = (name: string, r: SyncRun) =>
          `${name} ${r.ms.toFixed(0)} ms, ${r.pages} pages (p50 ${r.pageP50Ms.toFixed(1)} ms), ${r.objects} objects, ${r.tombstones} tombstones`;
        console.log(`[${dialect} r${round}] ${line('full sync', first.run)}; after ${changed} changes: ${line('sync', next.run)}`);
      }
    } finally {
      service.child.kill('SIGTERM');
    }
    const sum = (runs: SyncRun[]): { ms: Spread; pageP50Ms: Spread; pages: number; objects: number; tombstones: number } => ({
      ms: spread(runs.map((r) => r.ms)),
      pageP50Ms: spread(runs.map((r) => r.pageP50Ms)),
      pages: runs[0].pages,
      objects: runs[0].objects,
      tombstones: runs[0].tombstones,
    });
    results[dialect] = { events: o.events, changed, fullSync: sum(full), changedSync: sum(changes), rounds: { full, changes } };
    const r = results[dialect] as { fullSync: { ms: Spread }; changedSync: { ms: Spread } };
    console.log(
      `[${dialect}] full sync ${r.fullSync.ms.median.toFixed(0)} ms [${r.fullSync.ms.min.toFixed(0)}–${r.fullSync.ms.max.toFixed(0)}]; ` +
        `sync of ${changed} changed events ${r.changedSync.ms.median.toFixed(0)} ms [${r.changedSync.ms.min.toFixed(0)}–${r.changedSync.ms.max.toFixed(0)}]`,
    );
  } finally {
    await storage.close();
    await where.cleanup();
  }
}
killChildren();

const file = writeMeasured('sync', o.dialects, values.out, {
  command: `node dist/bench/sync.js --dialects ${o.dialects.join(',')} --events ${o.events} --per-page ${o.perPage} --rounds ${o.rounds}`,
  options: o,
  results,
});
console.log(`results: ${file}`);
