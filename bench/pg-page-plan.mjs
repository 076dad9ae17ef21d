// How PostgreSQL plans the default list's first page (issue 17, EventStore.page): the statement as it was sent
// before (statuses, flags, limit and offset as parameters) and as it is now (those as literals, the dates as
// parameters), each prepared on one connection, run 8 times (PostgreSQL tries five custom plans before it
// weighs a generic one), then: whether the ninth run is planned anew (EXPLAIN's "Planning Time" and the plan's
// conditions, with values or with $n), the generic plan's shape, and the time of 500 runs from this client.
// Usage: node bench/pg-page-plan.mjs [events]   (seeds a schema of its own with bench/seed.js, then drops it)
import pg from 'pg';

const n = Number(process.argv[2] ?? 10000);
const url = 'postgres://root@127.0.0.1:5432/test';
const schema = 'bench_pgpageplan';
const { openStorage } = await import('../dist/src/storage/storage.js');
const { seed } = await import('../dist/bench/seed.js');

const admin = new pg.Client(url);
await admin.connect();
await admin.query(`drop schema if exists ${schema} cascade; create schema ${schema}`);
const storage = await openStorage({ dialect: 'postgres', url, schema });
await storage.migrate();
await seed(storage, { events: n });
await storage.optimize();
await storage.close();

const day = (ms) => new Date(ms).toISOString().slice(0, 10);
const from = `${day(Date.now() - 86_400_000)} 00:00:00`;
const to = `${day(Date.now() + 730 * 86_400_000)} 23:59:59`;
const head = 'select "posts".*, "events".* from "events" inner join "posts" on "posts"."id" = "events"."post_id" where';
const statements = {
  before: {
    text: `${head} ("events"."status" = $1 and "events"."status" not in ($2, $3) and "events"."hide_from_listings" = $4 and "events"."kind" <> $5 and "events"."start_date" >= $6 and "events"."end_date" <= $7) order by "start_date" asc, "id" asc limit $8 offset $9`,
    values: ['publish', 'trash', 'auto-draft', 0, 'series', from, to, 4, 0],
  },
  after: {
    text: `${head} ("events"."status" = 'publish' and "events"."status" not in ('trash', 'auto-draft') and "events"."hide_from_listings" = 0 and "events"."kind" <> 'series' and "events"."start_date" >= $1 and "events"."end_date" <= $2) order by "start_date" asc, "id" asc limit 4`,
    values: [from, to],
  },
};
console.log(`# node bench/pg-page-plan.mjs ${n}   (${n} events, window ${from} – ${to})`);
for (const [name, s] of Object.entries(statements)) {
  const c = new pg.Client(url);
  await c.connect();
  await c.query(`set search_path to ${schema}`);
  const sqlValues = s.values.map((v) => (typeof v === 'number' ? String(v) : `'${v}'`)).join(', ');
  await c.query(`prepare p as ${s.text}`);
  for (let i = 0; i < 8; i++) await c.query(`execute p(${sqlValues})`);
  const plan = (await c.query(`explain (analyze, summary, costs off, timing off) execute p(${sqlValues})`)).rows.map((r) => r['QUERY PLAN']);
  const planning = plan.find((l) => l.startsWith('Planning Time'));
  const generic = plan.some((l) => /\$\d/.test(l));
  await c.query('set plan_cache_mode = force_generic_plan');
  await c.query(`prepare g as ${s.text}`);
  const genericPlan = (await c.query(`explain (costs off) execute g(${sqlValues})`)).rows.map((r) => r['QUERY PLAN'].trim());
  await c.query('reset plan_cache_mode');
  const times = [];
  for (let round = 0; round < 3; round++) {
    const t = performance.now();
    for (let i = 0; i < 500; i++) await c.query({ name: `q${round}`, text: s.text, values: s.values });
    times.push((((performance.now() - t) / 500) * 1000).toFixed(0));
  }
  console.log(`${name}: ninth run ${generic ? 'GENERIC plan' : 'planned anew (custom plan)'}; ${planning}`);
  console.log(
    `  its plan: ${plan
      .filter((l) => !/Time|Buffers/.test(l))
      .map((l) => l.trim())
      .join(' | ')}`,
  );
  console.log(`  the generic plan: ${genericPlan.join(' | ')}`);
  console.log(`  500 runs from this client, 3 rounds: ${times.join(', ')} µs a run`);
  await c.end();
}
await admin.query(`drop schema ${schema} cascade`);
await admin.end();
