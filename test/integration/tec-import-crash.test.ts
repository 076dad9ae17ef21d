/**
 * A site import killed mid-way (FEATURES.md §6.4 case 3): `calendar import tec` runs as its own process and is
 * killed with SIGKILL after about 40 % of the recorded site's event windows; run again, it takes over the dead
 * run's checkpoint (its lease need not run out: the process is gone), does not read again what was done, and
 * ends with the same data as one uninterrupted run into another database, compared through the API. Both runs
 * download the images (`--images download`): a file the killed run had kept is not downloaded again.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { UserService } from '../../src/domain/users/user.service.js';
import { BIN, databaseUrl, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { ImageFiles } from '../helpers/tec-images.js';
import { recordedSite } from '../helpers/tec-import.js';
import { TecSite } from '../helpers/tec-site.js';

const CONFIG = { PUBLIC_URL: 'http://calendar.test', SITE_TIMEZONE: 'America/New_York', LOG_LEVEL: 'silent' };

/** What a database holds, through the API, without what differs between two databases (ids, modification times). */
async function stateOf(db: TestDatabase): Promise<string> {
  const app = await buildApp(loadConfig(CONFIG), db.storage, { logger: false });
  const admin = (await db.storage.users.list()).find((u) => u.role === 'administrator');
  const { password } = await new UserService(db.storage).addAppPassword(admin!.login);
  const auth = { authorization: `Basic ${Buffer.from(`${admin!.login}:${password}`).toString('base64')}` };
  const get = async (url: string) => JSON.parse((await app.inject({ method: 'GET', url: `/calendar/events/v1${url}`, headers: auth })).body);
  const strip = (v: any): any => {
    if (Array.isArray(v)) return v.map(strip);
    if (v === null || typeof v !== 'object') return typeof v === 'string' ? v.replace(/[?&]p=\d+|id=\d+\b|\/\d+$/g, '') : v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !['id', 'modified', 'modified_utc', 'term_taxonomy_id', 'author'].includes(k))
        .map(([k, x]) => [k, strip(x)]),
    );
  };
  try {
    const events = [];
    for (let page = 1; page <= 4; page++) {
      const body = await get(
        `/events?start_date=2010-01-01&end_date=2035-12-31&per_page=50&page=${page}&status=publish,future,draft,pending,private`,
      );
      events.push(...(body.events ?? []));
    }
    const venues = (await get('/venues?per_page=50&status=publish,draft')).venues;
    const organizers = (await get('/organizers?per_page=50&status=publish,draft')).organizers;
    const categories = (await get('/categories?hide_empty=false&per_page=50')).categories;
    const tags = (await get('/tags?hide_empty=false&per_page=50')).tags;
    const sorted = (list: any[]) => strip(list).sort((a: any, b: any) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    return JSON.stringify({
      events: sorted(events),
      venues: sorted(venues),
      organizers: sorted(organizers),
      categories: sorted(categories),
      tags: sorted(tags),
    });
  } finally {
    await app.close();
  }
}

describe('calendar import tec, killed and run again', () => {
  let dir: string;
  let site: TecSite;
  let killed: TestDatabase;
  let whole: TestDatabase;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tec-crash-'));
    site = await TecSite.start(recordedSite(), { delayMs: 25 });
    new ImageFiles().serve(site);
    killed = await createTestDatabase({ sqlitePath: join(dir, 'killed.db') });
    whole = await createTestDatabase({ sqlitePath: join(dir, 'whole.db') });
    for (const db of [killed, whole]) await new UserService(db.storage).add({ login: 'admin', role: 'administrator' });
  });
  after(async () => {
    await site.close();
    await killed.drop();
    await whole.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (db: TestDatabase) => ({ ...CONFIG, DATABASE_URL: databaseUrl(db.config), IMPORT_ALLOW_PRIVATE: 'on' });

  it('resumes from the checkpoint and ends in the state of an uninterrupted run (case 3)', async () => {
    const child = spawn(process.execPath, [BIN, 'import', 'tec', site.url, '--images', 'download'], {
      env: { PATH: process.env.PATH ?? '', ...env(killed) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // about 40 %: the yearly windows 2014 to 2020 of 2014 to 2029 have been read
    const deadline = Date.now() + 60_000;
    while (!site.log.some((l) => l.path.includes('start_date=2021-01-01')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL');
    assert.equal(await exited, null, `killed, not finished: ${out}`);
    assert.match(out, /^import 1 events: \d+\/\d+/m, 'plain progress lines off a terminal');
    // what the killed run had kept of the images (written before the records that show them)
    const kept = new Set((await killed.storage.db.selectFrom('media_sources').select('url').execute()).map((r) => new URL(r.url).pathname));
    assert.ok(kept.size > 0, 'the venues’ images came before the kill');
    const before = site.log.length;
    const second = await runCli(['import', 'tec', site.url, '--images', 'download'], env(killed));
    assert.equal(second.code, 0, second.stderr + second.stdout);
    assert.match(second.stdout, /^import 2 done$/m);
    assert.match(second.stdout, /^events\s+\d+\s+0\s+\d+\s+0\s+0$/m);
    const again = site.log.slice(before).map((l) => l.path);
    assert.ok(!again.some((p) => p.includes('start_date=2015-01-01')), 'a window read before the kill is not read again');
    assert.ok(!again.some((p) => p.includes('/categories')), 'nor are the categories');
    assert.deepEqual(
      again.filter((p) => kept.has(p)),
      [],
      'nor an image file kept before the kill',
    );

    const uninterrupted = await runCli(['import', 'tec', site.url, '--images', 'download'], env(whole));
    assert.equal(uninterrupted.code, 0, uninterrupted.stderr);
    assert.match(uninterrupted.stdout, /^events\s+151\s+0\s+0\s+0\s+0$/m);
    const [a, b] = [JSON.parse(await stateOf(killed)), JSON.parse(await stateOf(whole))];
    for (const key of Object.keys(b)) {
      const flat = (v: any, at = ''): string[] =>
        v !== null && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => flat(x, `${at}.${k}`)) : [`${at}=${JSON.stringify(v)}`];
      const differing = (b[key] as any[])
        .map((x, i) => {
          const [p, q] = [flat(a[key][i]), flat(x)];
          return [...p.filter((l) => !q.includes(l)), '≠', ...q.filter((l) => !p.includes(l))];
        })
        .filter((d) => d.length > 1);
      assert.deepEqual(differing.slice(0, 2), [], `${key}: the same after the kill and resume as after one run`);
      assert.equal(a[key].length, b[key].length);
    }
    const jobs = await killed.storage.imports.list(10, 0);
    assert.deepEqual(
      jobs.jobs.map((j) => [j.id, j.state]),
      [
        [2, 'done'],
        [1, 'failed'],
      ],
    );
    assert.match(jobs.jobs[1].failure ?? '', /resumed by import 2/);
  });

  it('writes the redirect map for the web server', async () => {
    const res = await runCli(['import', 'redirects', site.url], env(whole));
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^# Redirects from http:\/\/127\.0\.0\.1:\d+ to http:\/\/calendar\.test/m);
    assert.match(res.stdout, /^"\/event\/summer-arts-festival\/" http:\/\/calendar\.test\/event\/summer-arts-festival\/;$/m);
    assert.match(
      res.stdout,
      /^"\/venue\/渋谷コミュニティホール\/" http:\/\/calendar\.test\/venue\/%e6%b8%8b/m,
      'percent-encoded in lower-case hex, as WordPress writes it',
    );
  });
});
