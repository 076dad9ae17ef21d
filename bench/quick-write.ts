/**
 * A quick in-process measurement of the cost of one `POST /events` (the full harness is `npm run bench`):
 * serial creates through `app.inject()` on a seeded SQLite file, so the figure is CPU per create without the
 * load generator. Run with `node --cpu-prof dist/bench/quick-write.js` to profile the write path.
 *
 * Usage: node dist/bench/quick-write.js [events 10000] [creates 5000] [concurrency 1]; `QUICK_BODY=realistic` sends
 * the realistic body of `npm run bench` (inline venue and organizer, two categories, a tag, an image URL: issue
 * 17's write target) instead of the minimal one; `QUICK_DIALECT=postgres` writes to PostgreSQL (a schema of its
 * own, dropped after) instead of a SQLite file.
 */
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { UserService } from '../src/domain/users/user.service.js';
import { openStorage } from '../src/storage/storage.js';
import { locateDatabase } from './artefacts.js';
import { seed } from './seed.js';
import { createBody } from './traffic.js';

const n = Number(process.argv[2] ?? 10_000);
const creates = Number(process.argv[3] ?? 5_000);
const concurrency = Number(process.argv[4] ?? 1);
const where = locateDatabase(process.env.QUICK_DIALECT === 'postgres' ? 'postgres' : 'sqlite', 'quick-write');
const storage = await openStorage(where.config);
await storage.migrate();
await seed(storage, { events: n });
await storage.optimize();
const login = 'bench-admin';
const password = 'bench-admin-password';
await new UserService(storage).add({ login, role: 'administrator', password });
const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), storage, { logger: false });
await app.ready();
const headers = {
  authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
  'content-type': 'application/json',
};
const day = 86_400_000;
const realistic = process.env.QUICK_BODY === 'realistic';
const nonce = Date.now().toString(36);
const body = (i: number) => {
  if (realistic) return createBody('realistic', i, nonce);
  const start = new Date(Date.now() + (i % 700) * day).toISOString().slice(0, 10);
  return JSON.stringify({
    title: `Bench event ${i}`,
    start_date: `${start} 19:00:00`,
    end_date: `${start} 21:00:00`,
    categories: [`category-${i % 50}`],
    tags: [`tag-${i % 200}`],
    cost: String(i % 40),
  });
};

let cpuUs = 0;
let sysUs = 0;

/** `count` creates, `concurrency` of them in flight at a time; answers µs per create. */
async function run(count: number, from: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let next = from;
  const worker = async () => {
    while (next < from + count) {
      const i = next++;
      const res = await app.inject({ method: 'POST', url: '/calendar/events/v1/events', headers, payload: body(i) });
      if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(cpu0);
  cpuUs = (cpu.user + cpu.system) / count;
  sysUs = cpu.system / count;
  return Number(process.hrtime.bigint() - t0) / 1e3 / count;
}

await run(500, 0); // warm-up
// QUICK_PROFILE=file.cpuprofile: a CPU profile of the measured creates only (not the seeding)
const profile = process.env.QUICK_PROFILE;
const inspector = profile ? new (await import('node:inspector')).Session() : undefined;
const post = (method: string, params?: object) =>
  new Promise<any>((resolve, reject) => inspector!.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
if (inspector) {
  inspector.connect();
  await post('Profiler.enable');
  await post('Profiler.start');
}
const us = await run(creates, 1_000);
if (inspector) {
  const { profile: data } = await post('Profiler.stop');
  (await import('node:fs')).writeFileSync(profile!, JSON.stringify(data));
}
console.log(
  `POST /events (${realistic ? 'realistic' : 'minimal'} body): ${us.toFixed(0)} µs per create in-process (CPU ${cpuUs.toFixed(0)} µs, of it system ${sysUs.toFixed(0)}), ${concurrency} at a time (${Math.round(1e6 / us)} creates/s on one core)`,
);
await app.close();
await where.cleanup();
