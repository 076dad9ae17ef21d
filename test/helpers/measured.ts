/**
 * Summaries of test runs kept as evidence for the figures SECURITY.md quotes. A run writes one only when
 * MEASURED_DIR names a folder (relative to the repository, or absolute): `npm run fuzz` and `npm run matrix`
 * set it to test/measured, where the summaries are committed; `npm test` leaves it unset and writes nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { DIALECT } from './db.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** The summaries themselves are not code: a run after another one's summary is still a run of the commit. */
function summariesPathspec(): string[] {
  const dir = process.env.MEASURED_DIR;
  if (!dir) return [];
  const inRepo = relative(ROOT, resolve(ROOT, dir));
  return inRepo.startsWith('..') || isAbsolute(inRepo) ? [] : [`:(exclude)${inRepo}`];
}

/** What identifies a run: when, on which commit (and whether tracked code differed from it), which database, which Node. */
export function runInfo() {
  return {
    date: new Date().toISOString(),
    commit: git(['rev-parse', 'HEAD']),
    uncommitted_changes: git(['status', '--porcelain', '--untracked-files=no', '--', '.', ...summariesPathspec()]) !== '',
    dialect: DIALECT,
    node: process.version,
  };
}

/** Writes `<name>-<date>-<dialect><suffix>.json` into MEASURED_DIR, when set; returns the file written. */
export function writeMeasured(name: string, summary: { date: string } & Record<string, unknown>, suffix = ''): string | undefined {
  const dir = process.env.MEASURED_DIR;
  if (!dir) return undefined;
  const folder = resolve(ROOT, dir);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${name}-${summary.date.slice(0, 10)}-${DIALECT}${suffix}.json`);
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  return file;
}
