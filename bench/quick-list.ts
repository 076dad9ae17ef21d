/** A quick in-process measurement of list latency at N events (the full harness is `npm run bench`). */
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { SqliteDialect } from '../src/storage/dialects/sqlite.dialect.js';
import { Storage } from '../src/storage/storage.js';
import { seed } from './seed.js';

const n = Number(process.argv[2] ?? 10_000);
const storage = new Storage(new SqliteDialect({ path: ':memory:' }));
await storage.migrate();
const seeded = await seed(storage, { events: n });
await storage.optimize();
console.log(`seeded ${n} events in ${seeded.seconds.toFixed(1)} s`);
const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent', CACHE_MB: process.env.CACHE_MB ?? '0' }), storage, { logger: false });
await app.ready();

async function measure(label: string, url: string, runs = 300) {
  runs = Math.min(runs, Number(process.env.RUNS ?? runs));
  for (let i = 0; i < 20; i++) await app.inject({ method: 'GET', url });
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const res = await app.inject({ method: 'GET', url });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(28)} p50 ${times[Math.floor(runs / 2)].toFixed(2)} ms  p99 ${times[Math.floor(runs * 0.99)].toFixed(2)} ms`);
}

const B = '/calendar/events/v1';
await measure('GET /events', `${B}/events`);
await measure('GET /events per_page=50', `${B}/events?per_page=50`);
await measure('filtered (cat+search+dates)', `${B}/events?categories=category-1&search=jazz&start_date=-1 year&end_date=+1 year&per_page=10`);
await measure('geolocation (50 km)', `${B}/events?geoloc_lat=48.8566&geoloc_lng=2.3522`, 30);
await measure('GET /events/<id>', `${B}/events/${seeded.publishedEventId}`);
await measure('GET /categories', `${B}/categories`);
await app.close();
