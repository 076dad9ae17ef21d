#!/usr/bin/env node
// Runs every test suite: unit tests once, and the database suites (test/**) once per database.
// Databases: TEST_DIALECTS (comma list: sqlite,postgres); unset → SQLite, plus PostgreSQL when the server at
// TEST_POSTGRES_URL (default postgres://root@127.0.0.1:5432/test) answers. Extra arguments filter file names.
// The browser suites (test/browser) run when a Chromium is found (CHROMIUM_PATH, default Debian's headless shell)
// and skip themselves otherwise; TEST_BROWSER_REQUIRED=1 makes a missing Chromium a failure (CI). They run after
// the other database suites, one file at a time.
import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import pg from 'pg';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';

function find(dir) {
  let out = [];
  let entries = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(find(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out.sort();
}

// matched against the path inside the project, so that the checkout's own directory name matches nothing
const pick = (files) => (filters.length === 0 ? files : files.filter((f) => filters.some((x) => relative(root, f).includes(x))));
const unitFiles = pick(find(join(root, 'dist/src')));
const dbFiles = pick(find(join(root, 'dist/test')));

async function postgresAnswers() {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

let dialects;
if (process.env.TEST_DIALECTS) {
  dialects = process.env.TEST_DIALECTS.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
} else {
  dialects = ['sqlite'];
  if (await postgresAnswers()) dialects.push('postgres');
  else console.log(`# PostgreSQL at ${POSTGRES_URL} does not answer: running the SQLite suites only`);
}
if (dialects.includes('postgres') && !(await postgresAnswers())) {
  console.error(`PostgreSQL at ${POSTGRES_URL} does not answer, and TEST_DIALECTS asks for it`);
  process.exit(1);
}

const browserFiles = dbFiles.filter((f) => relative(root, f).startsWith(join('dist', 'test', 'browser')));
if (browserFiles.length > 0) {
  // the same lookup as test/helpers/browser.ts
  const chromium = process.env.CHROMIUM_PATH || '/usr/lib/chromium/chromium-headless-shell';
  let found = true;
  try {
    accessSync(chromium, constants.X_OK);
  } catch {
    found = false;
  }
  if (found) console.log(`# browser tests run: Chromium found at ${chromium}`);
  else if (process.env.TEST_BROWSER_REQUIRED === '1') console.log(`# browser tests fail: no Chromium at ${chromium}, and TEST_BROWSER_REQUIRED=1`);
  else console.log(`# browser tests skipped: no Chromium at ${chromium}; set CHROMIUM_PATH`);
}

const concurrency = Math.max(1, Math.min(4, cpus().length));

function run(label, files, env, filesAtOnce = concurrency) {
  return new Promise((resolve) => {
    if (files.length === 0) return resolve({ label, tests: 0, pass: 0, fail: 0, code: 0 });
    console.log(`\n=== ${label}: ${files.length} file(s) ===`);
    const child = spawn(
      process.execPath,
      ['--enable-source-maps', '--test', '--test-reporter=spec', `--test-concurrency=${filesAtOnce}`, ...files.map((f) => relative(root, f))],
      { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let tail = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString()).slice(-4000);
    });
    child.on('close', (code) => {
      const num = (name) => Number((new RegExp(`ℹ ${name} (\\d+)`).exec(tail) ?? [])[1] ?? 0);
      resolve({ label, tests: num('tests'), pass: num('pass'), fail: num('fail'), code: code ?? 1 });
    });
  });
}

const results = [];
results.push(await run('unit', unitFiles, {}));
// The browser suites after the others, one file at a time: their deadlines (an embed's height within 1 s,
// FEATURES.md §5.5) are the browser's and the service's, and beside another suite's file on two cores a frame's
// page could take longer than that to load (pages-embed failed so twice in sessions 25 and 26, passing alone)
const otherFiles = dbFiles.filter((f) => !browserFiles.includes(f));
for (const dialect of dialects) {
  const env = { TEST_DIALECT: dialect, TEST_POSTGRES_URL: POSTGRES_URL };
  const suites = await run(`${dialect}`, otherFiles, env);
  const browser = await run(`${dialect}, browser suites one at a time`, browserFiles, env, 1);
  results.push({
    label: dialect,
    tests: suites.tests + browser.tests,
    pass: suites.pass + browser.pass,
    fail: suites.fail + browser.fail,
    code: suites.code || browser.code,
  });
}

console.log('\n=== summary ===');
for (const r of results)
  console.log(`${r.label.padEnd(10)} tests ${String(r.tests).padStart(5)}  pass ${String(r.pass).padStart(5)}  fail ${String(r.fail).padStart(4)}`);
process.exit(results.some((r) => r.code !== 0 || r.fail > 0) ? 1 : 0);
