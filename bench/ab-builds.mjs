// In-process A/B of two builds (issue 17): both builds' apps (CACHE_MB=0) on one seeded database, requests sent
// through app.inject in blocks of 100 (C at a time), the builds alternated block by block, so that the machine's
// drift falls on both. Prints the median time a request took in each build, for one event and the default list.
// Usage: node bench/ab-builds.mjs <dir of build A> <dir of build B> [sqlite|postgres] [events]  (env C: concurrency)
// (each dir a checkout with `npm run build` done; the database is seeded with build A's bench/seed.js)
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
const path = `${(await import('node:os')).tmpdir()}/ab-builds-${n}.db`;
const fs = await import('node:fs');
const url = 'postgres://root@127.0.0.1:5432/test';
const open = async (m) =>
  dialect === 'sqlite'
    ? new m.storage.Storage(new m.sqlite.SqliteDialect({ path }))
    : m.storage.openStorage({ dialect: 'postgres', url, schema: 'abinproc' });
/** Removes the seeded database (SQLite's files, PostgreSQL's schema), then runs `then` there (PostgreSQL). */
async function removeDatabase(then = '') {
  if (dialect === 'sqlite') {
    for (const f of [path, `${path}-wal`, `${path}-shm`]) fs.rmSync(f, { force: true });
    return;
  }
  const pg = (await import(`${builds[0]}/node_modules/pg/lib/index.js`)).default;
  const c = new pg.Client(url);
  await c.connect();
  await c.query(`drop schema if exists abinproc cascade; ${then}`);
  await c.end();
}
let published;
{
  await removeDatabase('create schema abinproc');
  const s = await open(mods[0]);
  await s.migrate();
  const r = await mods[0].seed.seed(s, { events: n });
  published = r.publishedEventId;
  await s.optimize();
  await s.close();
}
const apps = [];
for (const m of mods) {
  const s = await open(m);
  const app = await m.app.buildApp(
    m.config.loadConfig({ LOG_LEVEL: 'silent', CACHE_MB: '0', DATABASE_URL: dialect === 'sqlite' ? `sqlite:${path}` : url }),
    s,
    { logger: false },
  );
  await app.ready();
  apps.push(app);
}
const urls = { single: `/calendar/events/v1/events/${published}`, list: '/calendar/events/v1/events' };
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
// the seeded database goes (the apps' storages are left to the exit)
await removeDatabase();
process.exit(0);
