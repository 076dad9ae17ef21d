/**
 * The README's receiver (docs/examples/webhook-receiver.mjs), run as a user would, against real deliveries:
 * it accepts what the service signs, refuses a changed body or an old timestamp, prints each change once.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { createTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.js';
import { makeEvent } from '../helpers/factories.js';
import { machinery, testClock } from '../helpers/webhooks.js';

const EXAMPLE = fileURLToPath(new URL('../../../docs/examples/webhook-receiver.mjs', import.meta.url));

interface Example {
  readonly url: string;
  readonly lines: any[];
  /** Resolves once `n` lines were printed. */
  waitForLines(n: number): Promise<any[]>;
  readonly child: ChildProcess;
}

async function startExample(secret: string): Promise<Example> {
  const child = spawn(process.execPath, [EXAMPLE], {
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: any[] = [];
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      lines.push(JSON.parse(out.slice(0, nl)));
      out = out.slice(nl + 1);
    }
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  while (!/listening on (\S+)/.test(err)) {
    const [code] = await Promise.race([once(child.stderr!, 'data'), once(child, 'exit')]);
    if (typeof code === 'number' || code === null) throw new Error(`the example exited: ${err}`);
  }
  const url = /listening on (\S+)/.exec(err)![1];
  return {
    url,
    lines,
    child,
    async waitForLines(n) {
      const deadline = Date.now() + 10_000;
      while (lines.length < n) {
        if (Date.now() > deadline) throw new Error(`only ${lines.length} of ${n} lines: ${JSON.stringify(lines)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return lines;
    },
  };
}

describe('the README webhook receiver example', () => {
  let t: TestApp;
  let example: Example | undefined;
  beforeEach(async () => {
    t = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_VERIFY: 'off' });
  });
  afterEach(async () => {
    example?.child.kill();
    await t.close();
  });

  it('refuses to start without a whsec_ secret', async () => {
    const child = spawn(process.execPath, [EXAMPLE], { env: { PATH: process.env.PATH ?? '' }, stdio: 'ignore' });
    const [code] = await once(child, 'exit');
    assert.equal(code, 2);
  });

  it("registers as the README says, with the check on create: the receiver first, with a secret of one's own", async () => {
    const checked = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE: '1' });
    try {
      const secret = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 11) % 256)).toString('base64')}`;
      example = await startExample(secret);
      const made = await checked.post('/webhooks', { as: 'administrator', json: { url: `${example.url}/hook`, secret } });
      assert.equal(made.status, 201, made.text);
      const [line] = await example.waitForLines(1);
      assert.equal(line.type, 'webhook.test');
      // with a secret the receiver does not hold, the check fails and no endpoint is made
      const other = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
      const refused = await checked.post('/webhooks', { as: 'administrator', json: { url: `${example.url}/hook`, secret: other } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.code, 'webhook-endpoint-unreachable');
      assert.equal((await checked.get('/webhooks', { as: 'administrator' })).body.total, 1);
    } finally {
      await checked.close();
    }
  });

  it('verifies real deliveries, prints each change once, and refuses a changed body, a wrong secret and an old timestamp', async () => {
    // the endpoint first (its secret), then the receiver on a port of its own, then the endpoint's URL
    const made = await t.post('/webhooks', { as: 'administrator', json: { url: 'http://127.0.0.1:9/placeholder', event_types: ['event.*'] } });
    assert.equal(made.status, 201, made.text);
    example = await startExample(made.body.secret);
    const hook = made.body.id;
    assert.equal((await t.post(`/webhooks/${hook}`, { as: 'administrator', json: { url: `${example.url}/hook` } })).status, 200);

    const m = machinery(t, testClock(Date.now()));
    // (one change a round: deliveries are unordered, and the receiver drops a change older than one it printed)
    const event = await makeEvent(t, { title: 'Receiver night' });
    await m.round();
    await example.waitForLines(1);
    assert.equal((await t.post(`/events/${event.id}`, { as: 'administrator', json: { title: 'Receiver night, moved' } })).status, 200);
    await m.round();
    const lines = await example.waitForLines(2);
    assert.deepEqual(
      lines.map((l) => [l.type, l.id]),
      [
        ['event.created', event.id],
        ['event.updated', event.id],
      ],
    );
    assert.ok(lines[1].seq > lines[0].seq);
    assert.deepEqual(lines[1].changed, ['title']);
    assert.equal(lines[1].rest_url, `${PUBLIC_URL}/calendar/events/v1/events/${event.id}`);
    // the receiver answered 204 to both: the delivery log says succeeded
    const log = await t.get(`/webhooks/${hook}/deliveries`, { as: 'administrator' });
    assert.deepEqual(
      log.body.deliveries.map((d: any) => [d.status, d.last_status]),
      [
        ['succeeded', 204],
        ['succeeded', 204],
      ],
    );

    // a redelivery has the same webhook-id: accepted, not printed again
    const first = log.body.deliveries[1];
    assert.equal((await t.post(`/webhooks/${hook}/deliveries/${first.id}/redeliver`, { as: 'administrator' })).status, 200);
    await m.round();
    assert.equal((await t.get(`/webhooks/${hook}/deliveries/${first.id}`, { as: 'administrator' })).body.last_status, 204);
    // and the test message
    assert.equal((await t.post(`/webhooks/${hook}/test`, { as: 'administrator' })).body.status, 'succeeded');
    await example.waitForLines(3);
    assert.equal(example.lines[2].type, 'webhook.test');
    assert.equal(example.lines.length, 3, 'the redelivery was not printed');

    // requests signed here with the standardwebhooks package
    const message = (seq: number) => JSON.stringify({ type: 'event.deleted', timestamp: new Date().toISOString(), data: { id: event.id, seq } });
    const body = message(999);
    const post = async (secret: string, at: Date, sent = body) =>
      (
        await fetch(`${example!.url}/hook`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': `msg_forged_${at.getTime()}`,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': new Webhook(secret).sign(`msg_forged_${at.getTime()}`, at, body),
          },
          body: sent,
        })
      ).status;
    assert.equal(await post(made.body.secret, new Date(), body.replace('999', '998')), 401, 'one changed byte');
    assert.equal(await post(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, new Date()), 401, 'another secret');
    assert.equal(await post(made.body.secret, new Date(Date.now() - 10 * 60_000)), 401, 'ten minutes old');
    assert.equal(example.lines.length, 3);
    // the same, properly signed, is taken
    assert.equal(await post(made.body.secret, new Date()), 204);
    await example.waitForLines(4);
    assert.deepEqual([example.lines[3].type, example.lines[3].seq], ['event.deleted', 999]);
    // a change older than one printed, arriving late (another webhook-id, properly signed): accepted, dropped
    const late = message(lines[1].seq - 1);
    const at = new Date();
    const status = (
      await fetch(`${example.url}/hook`, {
        method: 'POST',
        headers: {
          'webhook-id': 'msg_late',
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(made.body.secret).sign('msg_late', at, late),
        },
        body: late,
      })
    ).status;
    assert.equal(status, 204);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(example.lines.length, 4, 'the older change was not printed');
  });
});
