/**
 * The physical limit: a bare node:http server answering every request with the exact bytes (and content type)
 * of the service's default `GET /events` response. Run as its own process, like the service.
 * Usage: node dist/bench/baseline.js PORT BODY_FILE
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const [port, file] = process.argv.slice(2);
const body = readFileSync(file);
const headers = { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(body.length) };
createServer((req, res) => {
  req.resume();
  res.writeHead(200, headers);
  res.end(body);
}).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
