/**
 * The physical limit: a bare node:http server that answers each request with the exact status, headers and
 * body the service gave for that method and URL (captured from the service before the run), looked up in a
 * Map. Loaded with a scenario's own request list it serves that scenario's own bytes, URL by URL: whatever the
 * service does beyond that lookup is what the ratio measures. Run as its own process(es), like the service:
 * with WORKERS > 1 it forks that many, as the service does.
 * Usage: WORKERS=n node dist/bench/baseline.js PORT MANIFEST_FILE   (see Manifest in traffic.ts; bodies in MANIFEST_FILE.body)
 */
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { baselineKey, type Manifest } from './traffic.js';

const [port, file] = process.argv.slice(2);
const workers = Number(process.env.WORKERS ?? 1);

if (workers > 1 && cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill();
    process.exit(0);
  });
} else {
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  const bodies = readFileSync(`${file}.body`);
  // headers flat (name, value, …), as writeHead takes them at the least cost: the service's 304s before the
  // framework are written so (fast-revalidation.ts), and a baseline that spread an object measured slower than them
  const answers = new Map<string, { status: number; headers: string[]; body: Buffer }>();
  for (const e of manifest.entries) {
    const body = bodies.subarray(e.offset, e.offset + e.length);
    const headers = Object.entries({ ...e.headers, 'content-length': String(body.length) }).flat();
    answers.set(e.key, { status: e.status, headers, body });
  }
  const missing = Buffer.from('{"code":"bench_baseline_missing","message":"not captured","data":{"status":404}}');
  createServer((req, res) => {
    req.resume();
    const answer = answers.get(baselineKey(req.method ?? 'GET', req.url ?? '/', req.headers.authorization !== undefined));
    if (answer === undefined) {
      // a URL the capture did not see: counted as non-2xx by the load, so it cannot pass unnoticed
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': String(missing.length) });
      res.end(missing);
      return;
    }
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  }).listen(Number(port), '127.0.0.1');
}
