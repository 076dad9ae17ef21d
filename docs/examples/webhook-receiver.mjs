#!/usr/bin/env node
/**
 * A webhook receiver for the calendar service, with nothing but Node.js (20 or later):
 *
 *   WEBHOOK_SECRET=whsec_… PORT=9000 node webhook-receiver.mjs
 *
 * It checks each delivery's Standard Webhooks signature (HMAC-SHA256 of `id.timestamp.body` with the secret's
 * bytes; any of the space-separated `v1,` signatures may match: two are sent for 24 hours after a rotation),
 * refuses timestamps more than five minutes away (replayed requests), answers 204 at once, ignores a
 * `webhook-id` it has seen (deliveries are at least once), and keeps, per object, only the newest `seq`
 * (deliveries are unordered). It prints one JSON line per change it accepts.
 *
 * The `standardwebhooks` package (npm, PyPI, …) does the same check in one call:
 * `new Webhook(secret).verify(body, headers)`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.env.WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) {
  console.error('set WEBHOOK_SECRET to the endpoint secret (whsec_…)');
  process.exit(2);
}
const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
const TOLERANCE_SECONDS = 5 * 60;

/** Whether the headers sign this body with our secret. */
function verified(headers, body) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  return signatures.split(' ').some((s) => {
    const [version, value] = s.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

// (in memory for the example: a real receiver keeps these where its data is)
const seen = new Set();
const newest = new Map();

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (!verified(req.headers, body)) {
      res.writeHead(401).end('bad signature');
      return;
    }
    // answer first, work after: a slow answer is a failed delivery, sent again
    res.writeHead(204).end();
    const id = req.headers['webhook-id'];
    if (seen.has(id)) return;
    seen.add(id);
    const { type, timestamp, data } = JSON.parse(body.toString('utf8'));
    if (type === 'webhook.test') {
      console.log(JSON.stringify({ type, timestamp }));
      return;
    }
    const object = `${type.split('.')[0]}:${data.id}`;
    if ((newest.get(object) ?? -1) > data.seq) return; // an older change arriving late
    newest.set(object, data.seq);
    // thin payloads name what changed; read the object at data.rest_url (or keep data.object of a full one)
    console.log(JSON.stringify({ type, id: data.id, seq: data.seq, status: data.status, changed: data.changed, rest_url: data.rest_url }));
  });
});

server.listen(Number(process.env.PORT ?? 9000), process.env.HOST ?? '127.0.0.1', () => {
  console.error(`listening on http://${process.env.HOST ?? '127.0.0.1'}:${server.address().port}`);
});
