// In-process A/B of two builds (issue 17): both builds' apps (CACHE_MB=0) on one seeded database, requests sent
// through app.inject in blocks of 100 (C at a time), the builds alternated block by block, so that the machine's
// drift falls on both. Prints the median time a request took in each build, for one event and the default list.
// Usage: node bench/ab-builds.mjs <dir of build A> <dir of build B> [sqlite|postgres] [events]  (env C: concurrency;
// env PATHS: paths under /calendar/events/v1 to time instead of one event and the default list, comma-separated;
// env CACHE_MB_AB: the response cache's size, 0 unless given, to time cached answers)
// (each dir a checkout with `npm run build` done; the database is seeded with build A's bench/seed.js; with
// SEED_EACH=1 each build seeds a database of its own with its own migrations — the same events, the seed being
// fixed — for changes to the schema)
const builds = [process.argv[2], process.argv[3]];
const [dialect, n] = [process.argv[4] ?? 'sqlite', Number(process.argv[5] ?? 10000)];
if (!builds[0] || !builds[1]) throw new Error('usage: node bench/ab-builds.mjs <build A dir> <build B dir> [sqlite|postgres] [events]');
const mods = await Promise.all(
  builds.map(async (b) => ({
    app: await import(`${b}/dist/src/app.js`),
    config: await import(`${b}/dist/src/config/config.js`),
    storage: await import(`${b}/dist/src/storage/storage.js`),
    seed: await import(`${b}/dist/bench/seed.js`),
    sqlite: await import(`${b}/dist/src/storage/dialects/sqlite.dialect.js`),
  })),
);
const each = process.env.SEED_EACH === '1';
/** The database build k reads: the one seeded, or with SEED_EACH its own. */
const place = (k) => (each ? k : 0);
const tmp = (await import('node:os')).tmpdir();
const path = (k) => `${tmp}/ab-builds-${n}${place(k) ? '-b' : ''}.db`;
const schema = (k) => `abinproc${place(k) ? '_b' : ''}`;
const fs = await import('node:fs');
const url = 'postgres://root@127.0.0.1:5432/test';
const open = async (m, k) =>
  dialect === 'sqlite'
    ? new m.storage.Storage(new m.sqlite.SqliteDialect({ path: path(k) }))
    : m.storage.openStorage({ dialect: 'postgres', url, schema: schema(k) });
/** Removes build k's seeded database (SQLite's files, PostgreSQL's schema), then runs `then` there (PostgreSQL). */
async function removeDatabase(k, then = '') {
  if (dialect === 'sqlite') {
    for (const f of [path(k), `${path(k)}-wal`, `${path(k)}-shm`]) fs.rmSync(f, { force: true });
    return;
  }
  const pg = (await import(`${builds[0]}/node_modules/pg/lib/index.js`)).default;
  const c = new pg.Client(url);
  await c.connect();
  await c.query(`drop schema if exists ${schema(k)} cascade; ${then}`);
  await c.end();
}
const seeded = each ? [0, 1] : [0];
let published;
for (const k of seeded) {
  await removeDatabase(k, `create schema ${schema(k)}`);
  const s = await open(mods[k], k);
  await s.migrate();
  const r = await mods[k].seed.seed(s, { events: n });
  if (published !== undefined && r.publishedEventId !== published) throw new Error('the two seeded databases differ');
  published = r.publishedEventId;
  await s.optimize();
  await s.close();
}
const apps = [];
for (const [k, m] of mods.entries()) {
  const s = await open(m, k);
  const app = await m.app.buildApp(
    m.config.loadConfig({
      LOG_LEVEL: 'silent',
      CACHE_MB: process.env.CACHE_MB_AB ?? '0',
      DATABASE_URL: dialect === 'sqlite' ? `sqlite:${path(k)}` : url,
    }),
    s,
    { logger: false },
  );
  await app.ready();
  apps.push(app);
}
// (env PATHS: other paths to time, comma-separated, each named by itself; e.g. a category's list)
const urls = process.env.PATHS
  ? Object.fromEntries(process.env.PATHS.split(',').map((p) => [p, `/calendar/events/v1${p}`]))
  : { single: `/calendar/events/v1/events/${published}`, list: '/calendar/events/v1/events' };
for (const [name, url] of Object.entries(urls)) {
  const t = [[], []];
  for (let block = 0; block < 20; block++)
    for (let i = 0; i < 2; i++) {
      const k = (block + i) % 2;
      const app = apps[k];
      const start = process.hrtime.bigint();
      const C = Number(process.env.C ?? 1);
      await Promise.all(
        Array.from({ length: C }, async () => {
          for (let j = 0; j < 100 / C; j++) {
            const r = await app.inject({ method: 'GET', url });
            if (r.statusCode !== 200) throw new Error(r.body);
          }
        }),
      );
      t[k].push(Number(process.hrtime.bigint() - start) / 1e6 / 100);
    }
  const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
  console.log(
    `${dialect} ${name}: A ${med(t[0]).toFixed(3)} ms, B ${med(t[1]).toFixed(3)} ms a request (medians of 20 blocks of 100, ${process.env.C ?? 1} at a time; B/A ${(med(t[1]) / med(t[0])).toFixed(2)})`,
  );
}
// the seeded databases go (the apps' storages are left to the exit)
for (const k of seeded) await removeDatabase(k);
process.exit(0);
