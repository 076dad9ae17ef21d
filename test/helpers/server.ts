/**
 * The service as a child process (`calendar serve`), the way it runs in production. With `TLS_CERT` in the
 * environment it is reached over HTTPS, trusting that certificate (Node's fetch takes no CA of its own, so
 * `httpsRequest` does those requests).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequestRaw } from 'node:https';
import { createServer } from 'node:net';
import { BIN } from './cli.js';

export interface RunningServer {
  port: number;
  /** `http://127.0.0.1:PORT`, or `https://…` when started with TLS_CERT. */
  base: string;
  /** The certificate to trust when started with TLS_CERT. */
  ca?: Buffer;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** What the process wrote on stdout (its log), when started with `{ captureLog: true }`. */
  log(): string;
  /** SIGTERM (or another signal) and wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface HttpsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over HTTPS trusting `ca` (a fresh connection each time, so a cluster spreads them). */
export function httpsRequest(
  url: string,
  options: { ca: Buffer; method?: string; headers?: Record<string, string>; body?: string },
): Promise<HttpsResponse> {
  return new Promise((resolve, reject) => {
    const req = httpsRequestRaw(url, { method: options.method ?? 'GET', headers: options.headers, ca: options.ca, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export async function startServer(env: Record<string, string>, options: { captureLog?: boolean } = {}): Promise<RunningServer> {
  const port = await freePort();
  const scheme = env.TLS_CERT !== undefined ? 'https' : 'http';
  const base = `${scheme}://127.0.0.1:${port}`;
  const ca = env.TLS_CERT !== undefined ? readFileSync(env.TLS_CERT) : undefined;
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: base, ...env },
    stdio: ['ignore', options.captureLog ? 'pipe' : 'ignore', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout?.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const until = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${stderr}`);
    try {
      const status = ca ? (await httpsRequest(`${base}/healthz`, { ca })).status : (await fetch(`${base}/healthz`)).status;
      if (status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`server did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    base,
    ca,
    child,
    exited,
    log: () => stdout,
    stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
