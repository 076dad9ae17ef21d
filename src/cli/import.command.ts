/**
 * `calendar import ics FILE|URL`: the same import as `POST /imports`, run in this process (the job is stored
 * like any other, so `GET /imports` shows it), with a progress bar on a terminal and plain lines otherwise,
 * then a summary table.
 */
import { readFileSync } from 'node:fs';
import cliProgress from 'cli-progress';
import type { Config } from '../config/config.js';
import { ApiError } from '../domain/errors.js';
import type { UpdateAuthority } from '../domain/imports/ics.importer.js';
import { icsText, NOT_UTF8 } from '../domain/imports/ics.structure.js';
import { createServices } from '../domain/services.js';
import { openStorage } from '../storage/storage.js';
import { exitCodeOf, importTecCommand } from './import-tec.command.js';
import { actingUser, parseCommand, UsageError } from './users.command.js';

const UPDATES: Record<string, UpdateAuthority> = { overwrite: 'overwrite', retain: 'retain', preserve: 'preserve_local_changes' };

export async function importCommand(config: Config, argv: string[]): Promise<number> {
  const [source, ...rest] = argv;
  if (source === 'tec' || source === 'redirects') return importTecCommand(config, argv);
  if (source !== 'ics') throw new UsageError('import takes a source: ics or tec (or redirects)');
  const options = {
    'dry-run': { type: 'boolean' },
    status: { type: 'string' },
    update: { type: 'string' },
    as: { type: 'string' },
  } as const;
  const { values, positionals } = parseCommand(rest, options);
  if (positionals.length !== 1) throw new UsageError('import ics takes one FILE or URL');
  const target = positionals[0];
  const status = values.status ?? 'publish';
  if (!['draft', 'publish', 'pending', 'private'].includes(status)) throw new UsageError('--status is draft, publish, pending or private');
  const update = UPDATES[values.update ?? 'overwrite'];
  if (!update) throw new UsageError('--update is overwrite, retain or preserve');
  const isUrl = /^(https?|webcals?):\/\//i.test(target);
  let text: string | undefined;
  if (!isUrl) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(target);
    } catch (error) {
      process.stderr.write(`calendar: cannot read ${target}: ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`);
      return 66;
    }
    text = icsText(bytes);
    if (text === undefined) {
      process.stderr.write(`calendar: cannot import ${target}: ${NOT_UTF8}\n`);
      return 1;
    }
  }

  const storage = await openStorage(config.database, { poolSize: 2 });
  try {
    await storage.migrate();
    const services = createServices(config, storage);
    const actor = await actingUser(storage, values.as, 'name an editor with --as LOGIN');
    if (!actor) return 67;
    const job = await services.imports.create(actor, {
      source: 'ics',
      text,
      url: isUrl ? target : undefined,
      dryRun: values['dry-run'] === true,
      defaultStatus: status,
      updateAuthority: update,
    });
    const tty = process.stdout.isTTY === true;
    const bar = tty
      ? new cliProgress.SingleBar({ format: 'importing [{bar}] {value}/{total} events', hideCursor: true }, cliProgress.Presets.shades_classic)
      : undefined;
    let started = false;
    let lastLine = 0;
    let last = '';
    await services.imports.runPending(job.id, (_job, p) => {
      if (bar) {
        if (!started) bar.start(p.total, p.done);
        else bar.update(p.done);
        started = true;
      } else if (Date.now() - lastLine > 1000 || p.done === p.total) {
        const line = `import ${job.id}: ${p.done}/${p.total} (created ${p.counts.created}, updated ${p.counts.updated}, skipped ${p.counts.skipped}, failed ${p.counts.failed})\n`;
        // the end is reported more than once (the last record, then the job): the same line is not repeated
        if (line === last) return;
        last = line;
        lastLine = Date.now();
        process.stdout.write(line);
      }
    });
    bar?.stop();
    const done = await services.imports.get(actor, job.id);
    process.stdout.write(`\nimport ${done.id} ${done.state}${done.options.dry_run ? ' (dry run: nothing written)' : ''}\n`);
    const rows: [string, number][] = [
      ['created', done.created],
      ['updated', done.updated],
      ['skipped', done.skipped],
      ['failed', done.failed],
    ];
    for (const [name, n] of rows) process.stdout.write(`  ${name.padEnd(8)} ${String(n).padStart(6)}\n`);
    for (const e of done.errors.slice(0, 50)) {
      process.stdout.write(
        `  ! ${e.line !== null ? `line ${e.line} ` : ''}${e.uid ?? ''}${e.recurrenceId ? ` (${e.recurrenceId})` : ''}: ${e.reason}\n`,
      );
    }
    if (done.failure) process.stderr.write(`calendar: import failed: ${done.failure}\n`);
    return exitCodeOf(done.state, done.failed);
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
