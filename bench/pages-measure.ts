/**
 * What bench/pages.ts needs around its processes: starting the service as a user would (`calendar serve`,
 * production settings) and a bare server with captured answers (bench/baseline.ts), time to the last byte over
 * one keep-alive connection, a load run (bench/load.ts, its own process), waiting for the service to be idle,
 * and the kernel's peak-RSS mark of a process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/server.js';
import type { LoadResult, LoadSpec } from './load.js';
import { baselineKey, type Manifest, type RequestSpec } from './traffic.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const BIN = join(here, '../src/cli/main.js');
const LOAD = join(here, 'load.js');
const BASELINE = join(here, 'baseline.js');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const children = new Set<ChildProcess>();

export function killChildren(): void {
  for (const child of children) child.kill('SIGTERM');
  children.clear();
}

async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

export interface Proc {
  child: ChildProcess;
  base: string;
}

/** `calendar serve` on the database, production settings; `env` adds to them. The caller's CACHE_MB and the like are not passed on. */
export async function startService(databaseUrl: string, env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  const inherited: Record<string, string | undefined> = { ...process.env };
  for (const name of ['CACHE_MB', 'SQLITE_SYNCHRONOUS', 'RATE_LIMIT', 'SITE_TIMEZONE', 'PAGES', 'PAGES_DEFAULT_VIEW']) delete inherited[name];
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...inherited,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      WORKERS: '1',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.add(child);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/healthz`);
  return { child, base };
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Headers the bare server does not replay: per-connection ones, and the ones node:http writes itself. */
const UNREPLAYED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'x-cache']);

export async function fetchAnswer(base: string, r: RequestSpec): Promise<Answer> {
  const res = await fetch(`${base}${r.path}`, { headers: r.headers });
  const body = Buffer.from(await res.arrayBuffer());
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!UNREPLAYED.has(name)) headers[name] = value;
  });
  return { status: res.status, headers, body };
}

/** A bare node:http server answering `r` with `answer` (bench/baseline.ts). */
export async function startBaseline(dir: string, name: string, r: RequestSpec, answer: Answer): Promise<Proc> {
  const manifest = join(dir, `baseline-${name}.json`);
  const entry = { key: baselineKey('GET', r.path, false), status: answer.status, headers: answer.headers, offset: 0, length: answer.body.length };
  writeFileSync(manifest, JSON.stringify({ entries: [entry] } satisfies Manifest));
  writeFileSync(`${manifest}.body`, answer.body);
  const port = await freePort();
  const child = spawn(process.execPath, [BASELINE, String(port), manifest], {
    env: { ...process.env, WORKERS: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/`);
  return { child, base };
}

export interface Ttlb {
  n: number;
  p50: number;
  p95: number;
  min: number;
  max: number;
  /** Bytes of the last answer. */
  bytes: number;
}

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/**
 * Time to the last byte, one keep-alive connection, one request at a time: `warm` requests first, then up to
 * `n` measured ones or as many as fit in `budgetMs`. Every answer must have the expected status.
 */
export async function timeToLastByte(base: string, r: RequestSpec, expect: number, n: number, warm: number, budgetMs: number): Promise<Ttlb> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(base);
  const one = () =>
    new Promise<{ ms: number; bytes: number }>((resolve, reject) => {
      const t0 = performance.now();
      const req = request({ host: url.hostname, port: url.port, path: r.path, headers: r.headers, agent }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => {
          const ms = performance.now() - t0;
          if (res.statusCode !== expect) reject(new Error(`GET ${r.path}: ${res.statusCode}, expected ${expect}`));
          else resolve({ ms, bytes });
        });
      });
      req.on('error', reject);
      req.end();
    });
  try {
    for (let i = 0; i < warm; i++) await one();
    const times: number[] = [];
    let bytes = 0;
    const until = performance.now() + budgetMs;
    while (times.length < n && (times.length < 10 || performance.now() < until)) {
      const got = await one();
      times.push(got.ms);
      bytes = got.bytes;
    }
    times.sort((a, b) => a - b);
    const round = (x: number) => Number(x.toFixed(2));
    return { n: times.length, p50: round(at(times, 0.5)), p95: round(at(times, 0.95)), min: round(times[0]), max: round(times.at(-1)!), bytes };
  } finally {
    agent.destroy();
  }
}

function runNode(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => {
      children.delete(child);
      if (code === 0) resolve(out);
      else reject(new Error(`${script} exited ${code}`));
    });
  });
}

/** One autocannon run in its own process (bench/load.ts). */
export async function load(dir: string, base: string, r: RequestSpec, connections: number, duration: number): Promise<LoadResult> {
  const file = join(dir, 'load-spec.json');
  const spec: LoadSpec = { url: base, connections, duration, timeout: 120, requests: [r], nonce: 'pages' };
  writeFileSync(file, JSON.stringify(spec));
  return JSON.parse((await runNode(LOAD, [file])).trim().split('\n').pop()!) as LoadResult;
}

/** Waits until `/healthz` answers within 20 ms three times in a row (what a load left in flight is done). */
export async function settle(base: string, maxMs = 30_000): Promise<number> {
  const started = Date.now();
  let calm = 0;
  while (Date.now() - started < maxMs) {
    const t0 = performance.now();
    try {
      await (await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5000) })).arrayBuffer();
    } catch {
      await sleep(100);
    }
    calm = performance.now() - t0 < 20 ? calm + 1 : 0;
    if (calm >= 3) return (Date.now() - started) / 1000;
    await sleep(50);
  }
  throw new Error(`${base} still busy after ${maxMs / 1000} s`);
}

/** Resets the kernel's peak-RSS mark of a process (false if refused). */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export function peakRssMb(pid: number): number {
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
}
