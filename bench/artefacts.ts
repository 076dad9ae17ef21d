/**
 * What the benchmarks share around the measuring: where a dialect's benchmark database lives (a SQLite file in a
 * temporary directory, a PostgreSQL schema of its own) and how a run's JSON is written to bench/measured/ with
 * the commit, the machine and the load it ran under.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { DatabaseConfig } from '../src/config/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';

export interface BenchDatabase {
  /** The SQLite file, or the PostgreSQL schema. */
  readonly location: string;
  /** What `calendar serve` opens it with (DATABASE_URL). */
  readonly databaseUrl: string;
  /** What `openStorage` opens it with. */
  readonly config: DatabaseConfig;
  cleanup(): Promise<void>;
}

/** A fresh place for a dialect's benchmark database, named after the benchmark. */
export function locateDatabase(dialect: string, name: string): BenchDatabase {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `calendar-${name}-`));
    const location = join(dir, `${name}.db`);
    return {
      location,
      databaseUrl: `sqlite:${location}`,
      config: { dialect: 'sqlite', path: location },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_${name.replace(/\W/g, '_')}_${process.pid}`;
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    location: schema,
    databaseUrl: url.toString(),
    config: { dialect: 'postgres', url: POSTGRES_URL, schema },
    cleanup: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

function gitInfo(): { commit: string; dirty: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}

/** The machine a run measured, with the load average before it (when known) and now. */
export function machineInfo(loadAverageBefore?: number[]) {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${process.platform} ${release()}`,
    node: process.version,
    ...(loadAverageBefore ? { loadAverageBefore } : {}),
    loadAverageAfter: loadavg(),
  };
}

/**
 * Writes a run's JSON (to `out`, or bench/measured/<name>-<time>-<dialects>.json) with its date, commit and
 * machine; answers the file's path.
 */
export function writeMeasured(
  name: string,
  dialects: readonly string[],
  out: string | undefined,
  body: { readonly command?: string; readonly options: unknown; readonly results: unknown; readonly machine?: unknown },
): string {
  const now = new Date();
  const stamp = now.toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const file = out ?? join(ROOT, 'bench/measured', `${name}-${stamp}-${dialects.join('-')}.json`);
  mkdirSync(join(file, '..'), { recursive: true });
  const { machine, ...rest } = body;
  writeFileSync(file, `${JSON.stringify({ date: now.toISOString(), git: gitInfo(), machine: machine ?? machineInfo(), ...rest }, null, 2)}\n`);
  return file;
}
