// The first requests of a burst of new connections to a busy server (session 21, src/http/turns.ts). libuv (Node 20)
// accepts one connection per turn of the event loop; when every turn runs many requests' work, the last of 64 new
// connections waits seconds for its first answer. Runs 64 connections for 6 s, three times, against either a bare
// node:http server doing BUSY ms (default 3) of synchronous work a request, or the service of a build directory on a
// seeded SQLite file (CACHE_MB=0), and prints per run: req/s, p50/p99/max latency (from each request's send), and the
// requests that took over a second, with when they were sent.
// Usage: node bench/first-requests.mjs bare
//        node bench/first-requests.mjs <build dir> <sqlite file> <path>
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const [target, file, path] = process.argv.slice(2);
if (!target) throw new Error('usage: node bench/first-requests.mjs bare | <build dir> <sqlite file> <path>');
const port = 3990;
const busy = Number(process.env.BUSY ?? 3);
const server =
  target === 'bare'
    ? spawn(
        process.execPath,
        [
          '-e',
          `require('node:http').createServer((q, s) => { const end = performance.now() + ${busy}; while (performance.now() < end); s.end('x'.repeat(2000)); }).listen(${port})`,
        ],
        { stdio: 'inherit' },
      )
    : spawn(process.execPath, [`${target}/dist/src/cli/main.js`, 'serve'], {
        env: { ...process.env, DATABASE_URL: `sqlite:${file}`, CACHE_MB: '0', LOG_LEVEL: 'silent', PORT: String(port) },
        stdio: 'inherit',
      });
await sleep(3000);
const autocannon = (await import(new URL('../node_modules/autocannon/autocannon.js', import.meta.url))).default;
const url = `http://127.0.0.1:${port}${target === 'bare' ? '/' : path}`;
console.log(`${target === 'bare' ? `bare node:http, ${busy} ms of work a request` : `${target}, ${path}`}: 64 new connections, 6 s, 3 runs`);
for (let run = 1; run <= 3; run++) {
  const t0 = performance.now();
  const latencies = [];
  const slow = [];
  const result = await autocannon({
    url,
    connections: 64,
    duration: 6,
    setupClient: (client) => {
      let sent = 0;
      client.on('request', () => (sent = performance.now()));
      client.on('response', () => {
        const ms = performance.now() - sent;
        latencies.push(ms);
        if (ms > 1000) slow.push(`${(sent - t0).toFixed(0)}+${ms.toFixed(0)}`);
      });
    },
  });
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.floor(p * (latencies.length - 1))].toFixed(0);
  console.log(
    `run ${run}: ${result.requests.average} req/s, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms; ${slow.length} of ${latencies.length} over 1 s (sent at ms + took ms): ${slow.join(' ')}`,
  );
}
server.kill();
process.exit(0);
