/**
 * The physical limit: a bare node:http server answering every request with the exact bytes (and content type)
 * of the service's default `GET /events` response. Run as its own process(es), like the service: with
 * WORKERS > 1 it forks that many, as the service does.
 * Usage: WORKERS=n node dist/bench/baseline.js PORT BODY_FILE
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const [port, file] = process.argv.slice(2);
const workers = Number(process.env.WORKERS ?? 1);

if (workers > 1 && cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill();
    process.exit(0);
  });
} else {
  const body = readFileSync(file);
  const headers = { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(body.length) };
  createServer((req, res) => {
    req.resume();
    res.writeHead(200, headers);
    res.end(body);
  }).listen(Number(port), '127.0.0.1');
}
