/**
 * `calendar import tec <site URL or API root> [options]`: moving a whole site running The Events Calendar in
 * (issue 15). The same job as `POST /imports` with `source=tec`, run in this process: a progress bar per stage
 * on a terminal, plain progress lines otherwise, then the report (per resource: created, updated, unchanged,
 * trashed, failed; warnings with the remote id and the reason) and, with `--redirects FILE`, the redirect map.
 * A run that was killed or stopped resumes from its checkpoint when run again with the same options.
 * `calendar import redirects <site URL or API root> [--out FILE]` prints the redirect map of an earlier import.
 */
import { writeFileSync } from 'node:fs';
import cliProgress from 'cli-progress';
import type { Config } from '../config/config.js';
import { ApiError } from '../domain/errors.js';
import { isDay } from '../domain/imports/tec/tec.importer.js';
import { nginxMap } from '../domain/imports/tec/tec.redirects.js';
import { OUTCOMES, RESOURCES, type TecReport, totals } from '../domain/imports/tec/tec.report.js';
import { createServices, type Services } from '../domain/services.js';
import { Urls } from '../http/urls.js';
import { openStorage } from '../storage/storage.js';
import { actingUser, parseCommand, UsageError, valueOrFile } from './users.command.js';

/**
 * An import's exit code: 0 done, 1 failed, 3 done with records that failed (the report lists them), so that a
 * script running the import again until the switch-over notices them.
 */
export function exitCodeOf(state: string, failedRecords: number): number {
  if (state !== 'done') return 1;
  return failedRecords > 0 ? 3 : 0;
}

const OPTIONS = {
  'app-password': { type: 'string' },
  'app-password-file': { type: 'string' },
  'event-password': { type: 'string' },
  since: { type: 'string' },
  'dry-run': { type: 'boolean' },
  prune: { type: 'boolean' },
  'group-series': { type: 'boolean' },
  images: { type: 'string' },
  concurrency: { type: 'string' },
  'max-probes': { type: 'string' },
  as: { type: 'string' },
  author: { type: 'string' },
  redirects: { type: 'string' },
  out: { type: 'string' },
} as const;

/** What `import redirects` takes; `import tec` takes every other option. */
const REDIRECTS_OPTIONS: ReadonlySet<string> = new Set(['out']);
const TEC_OPTIONS: ReadonlySet<string> = new Set(Object.keys(OPTIONS).filter((name) => !REDIRECTS_OPTIONS.has(name)));

function int(value: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new UsageError(`--${name} is a number from ${min} to ${max}`);
  return Number(value);
}

export function printReport(report: TecReport, write: (s: string) => void): void {
  write(`\n${'resource'.padEnd(12)}${OUTCOMES.map((o) => o.padStart(11)).join('')}\n`);
  for (const r of RESOURCES) write(`${r.padEnd(12)}${OUTCOMES.map((o) => String(report.resources[r][o]).padStart(11)).join('')}\n`);
  const p = report.probes;
  write(`\nevents listed by the site: ${report.listed.total}, found: ${report.listed.found}\n`);
  write(`unlisted ids read: ${p.probed} (hidden events found: ${p.found}, not readable: ${p.not_readable}, not events: ${p.not_events})\n`);
  write(
    `requests: ${report.requests}, waited for the site: ${Math.round(report.waited_ms / 1000)} s, complete pass: ${report.complete ? 'yes' : 'no'}\n`,
  );
  for (const w of report.warnings) write(`  ! ${w.resource} ${w.remote_id}: ${w.reason}\n`);
}

/** The redirect map of the imports of a site, written out; undefined (nothing written) when none was imported. */
async function writeRedirects(services: Services, config: Config, site: string, file: string | undefined): Promise<number | undefined> {
  const urls = new Urls(config.publicUrl);
  const maps = await services.imports.redirects(site, urls);
  if (maps.length === 0) return undefined;
  const text = maps
    .map((m) => nginxMap(m.redirects, m.sourceKey.replace(/\/(\?rest_route=\/)?(wp-json\/)?tribe\/events\/v1$/, ''), urls.home))
    .join('\n');
  if (file === undefined || file === '-') process.stdout.write(text);
  else writeFileSync(file, text);
  return maps.reduce((n, m) => n + m.redirects.length, 0);
}

export async function importTecCommand(config: Config, argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseCommand(rest, OPTIONS);
  if (positionals.length !== 1) throw new UsageError(`import ${sub} takes one site URL (or events API root)`);
  // one table of options for both, each taking its own only (an import's --redirects is not the map's --out)
  const own = sub === 'redirects' ? REDIRECTS_OPTIONS : TEC_OPTIONS;
  const stray = Object.keys(values).find((name) => !own.has(name));
  if (stray !== undefined) throw new UsageError(`import ${sub} does not take --${stray}`);
  const url = positionals[0];
  if (values.images !== undefined && !['link', 'download', 'skip'].includes(values.images))
    throw new UsageError('--images is link, download or skip');
  if (values.since !== undefined && !isDay(values.since)) throw new UsageError(`--since is a day, YYYY-MM-DD (${values.since} is not one)`);
  const appPassword = valueOrFile(values, 'app-password');
  if (appPassword === null) return 66;
  if (appPassword !== undefined && !appPassword.includes(':')) throw new UsageError('--app-password (or its file) is LOGIN:PASSWORD');
  const concurrency = int(values.concurrency, 'concurrency', 1, 8, 2);
  const maxProbes = int(values['max-probes'], 'max-probes', 0, 100000, 5000);

  const storage = await openStorage(config.database, { poolSize: 2 });
  try {
    await storage.migrate();
    const services = createServices(config, storage);
    if (sub === 'redirects') {
      const n = await writeRedirects(services, config, url, values.out);
      process.stderr.write(n === undefined ? `calendar: no import of ${url} here (calendar import tec ${url} makes one)\n` : `${n} redirects\n`);
      return n !== undefined && n > 0 ? 0 : 1;
    }
    const actor = await actingUser(storage, values.as, 'name an editor with --as LOGIN');
    if (!actor) return 67;
    const author = values.author ? await storage.users.findByLogin(values.author) : actor;
    if (!author) {
      process.stderr.write(`calendar: no user ${values.author}\n`);
      return 67;
    }
    const job = await services.imports.create(actor, {
      source: 'tec',
      url,
      dryRun: values['dry-run'] === true,
      defaultStatus: 'publish',
      updateAuthority: 'overwrite',
      tec: {
        since: values.since,
        prune: values.prune === true,
        group_series: values['group-series'] === true,
        images: values.images ?? 'link',
        concurrency,
        app_password: appPassword,
        event_password: values['event-password'],
        author: author.id,
        max_probes: maxProbes,
      },
    });
    const tty = process.stdout.isTTY === true;
    let bar: cliProgress.SingleBar | undefined;
    let stage = '';
    let lastLine = 0;
    await services.imports.runPending(job.id, (_job, p) => {
      const now = p.tec?.stage ?? '';
      if (tty) {
        if (now !== stage) {
          bar?.stop();
          bar = new cliProgress.SingleBar(
            { format: `${now.padEnd(8)} [{bar}] {value}/{total}`, hideCursor: true },
            cliProgress.Presets.shades_classic,
          );
          bar.start(p.total, p.done);
        } else {
          bar?.setTotal(p.total);
          bar?.update(p.done);
        }
      } else if (now !== stage || Date.now() - lastLine > 1000) {
        lastLine = Date.now();
        const c = p.counts;
        process.stdout.write(
          `import ${job.id} ${now}: ${p.done}/${p.total} (created ${c.created}, updated ${c.updated}, unchanged ${c.skipped}, failed ${c.failed})\n`,
        );
      }
      stage = now;
    });
    bar?.stop();
    const done = await services.imports.get(actor, job.id);
    const report = (await services.imports.report(done)) as TecReport | null;
    process.stdout.write(`\nimport ${done.id} ${done.state}${done.options.dry_run ? ' (dry run: nothing written)' : ''}\n`);
    if (report) printReport(report, (s) => process.stdout.write(s));
    if (done.failure) process.stderr.write(`calendar: import failed: ${done.failure}\n`);
    if (values.redirects !== undefined && done.state === 'done' && report?.site) {
      const n = await writeRedirects(services, config, report.site.api_root, values.redirects);
      process.stdout.write(`redirect map: ${n ?? 0} old permalinks → ${values.redirects}\n`);
    }
    return exitCodeOf(done.state, report ? totals(report).failed : done.failed);
  } catch (error) {
    if (error instanceof ApiError) {
      process.stderr.write(`calendar: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await storage.close();
  }
}
