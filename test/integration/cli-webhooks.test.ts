import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { databaseUrl, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { type Receiver, startReceiver } from '../helpers/webhooks.js';

describe('calendar webhooks (CLI)', () => {
  let dir: string;
  let db: TestDatabase;
  let env: Record<string, string>;
  let receiver: Receiver;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calendar-cli-webhooks-'));
    db = await createTestDatabase({ sqlitePath: join(dir, 'cli.db') });
    // the receiver is on 127.0.0.1: private addresses allowed, as in development
    env = { DATABASE_URL: databaseUrl(db.config), LOG_LEVEL: 'silent', WEBHOOKS_ALLOW_PRIVATE: '1' };
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('needs an administrator to act as', async () => {
    const res = await runCli(['webhooks', 'list'], env);
    assert.equal(res.code, 67);
    assert.match(res.stderr, /no administrator/);
  });

  it('adds an endpoint (verified with a signed webhook.test), lists, tests, shows deliveries and removes it', async () => {
    assert.equal((await runCli(['users', 'add', 'admin', '--role', 'administrator'], env)).code, 0);
    const add = await runCli(
      ['webhooks', 'add', `${receiver.url}/hooks`, '--types', 'event.*,venue.created', '--description', 'Newsletter', '--payload', 'full'],
      env,
    );
    assert.equal(add.code, 0, add.stderr);
    const id = Number(/created webhook endpoint (\d+)/.exec(add.stdout)?.[1]);
    assert.ok(id > 0, add.stdout);
    const secret = add.stdout.trim().split('\n').at(-1)!;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.match(add.stdout, /event types\s+event\.\*, venue\.created/);
    assert.match(add.stdout, /payload\s+full/);
    // creating it sent a webhook.test, signed with the secret just printed
    assert.equal(receiver.received.length, 1);
    const verify = receiver.received[0];
    assert.equal(verify.path, '/hooks');
    assert.equal(verify.json.type, 'webhook.test');
    new Webhook(secret).verify(verify.body, verify.headers as Record<string, string>);

    const list = await runCli(['webhooks', 'list'], env);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^${id}\\s+yes\\s+full\\s+event\\.\\*,venue\\.created\\s+${receiver.url}/hooks$`, 'm'));
    assert.doesNotMatch(list.stdout, /whsec_/);

    receiver.script({ status: 200, body: 'thanks' });
    const test = await runCli(['webhooks', 'test', String(id)], env);
    assert.equal(test.code, 0, test.stderr);
    assert.match(test.stdout, /webhook\.test to endpoint \d+: succeeded \(HTTP 200, \d+ ms\)/);
    assert.match(test.stdout, /response: thanks/);
    assert.equal(receiver.received.length, 2);
    new Webhook(secret).verify(receiver.received[1].body, receiver.received[1].headers as Record<string, string>);

    receiver.script({ status: 503, body: 'down for maintenance' });
    const failing = await runCli(['webhooks', 'test', String(id)], env);
    assert.equal(failing.code, 1);
    assert.match(failing.stdout, /failed \(HTTP 503/);

    const deliveries = await runCli(['webhooks', 'deliveries', String(id)], env);
    assert.equal(deliveries.code, 0, deliveries.stderr);
    const rows = deliveries.stdout.trim().split('\n').slice(1);
    assert.equal(rows.length, 2, deliveries.stdout);
    // newest first
    assert.match(rows[0], /^\d+\s+failed\s+webhook\.test\s+0\s+1\s+503\s/);
    assert.match(rows[1], /^\d+\s+succeeded\s+webhook\.test\s+0\s+1\s+200\s/);
    const succeeded = await runCli(['webhooks', 'deliveries', String(id), '--status', 'succeeded', '--limit', '5'], env);
    assert.equal(succeeded.stdout.trim().split('\n').length, 2, succeeded.stdout);
    const paged = await runCli(['webhooks', 'deliveries', String(id), '--limit', '1'], env);
    assert.match(paged.stdout, /\(more: GET \/webhooks\/\d+\/deliveries\?page_token=d\d+\)/);

    const remove = await runCli(['webhooks', 'remove', String(id)], env);
    assert.equal(remove.code, 0, remove.stderr);
    assert.match(remove.stdout, new RegExp(`removed webhook endpoint ${id}`));
    assert.doesNotMatch((await runCli(['webhooks', 'list'], env)).stdout, /\/hooks/);
  });

  it('refuses filters naming what does not exist, and an endpoint whose receiver does not answer 2xx', async () => {
    const add = await runCli(['webhooks', 'add', receiver.url, '--category', '12,13', '--category', '14', '--venue', '7'], env);
    // the categories and the venue must exist: the service names what is missing
    assert.equal(add.code, 1);
    assert.match(add.stderr, /^calendar: .+\(rest_invalid_param\)$/m);
    // with the reason of each refused parameter, not only its name
    assert.match(add.stderr, /^ {2}filter: .*1[234]/m);
    receiver.script({ status: 500 });
    const unreachable = await runCli(['webhooks', 'add', receiver.url], env);
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /\(webhook-endpoint-unreachable\)/);
    assert.doesNotMatch((await runCli(['webhooks', 'list'], env)).stdout, /127\.0\.0\.1/);
  });

  it('refuses bad input with a message and a non-zero exit, touching nothing', async () => {
    const before = receiver.received.length;
    const cases: [string[], number, RegExp][] = [
      [['webhooks'], 2, /webhooks needs a subcommand/],
      [['webhooks', 'fly'], 2, /unknown webhooks subcommand/],
      [['webhooks', 'add'], 2, /exactly one URL/],
      [['webhooks', 'add', receiver.url, '--payload', 'fat'], 2, /--payload is thin or full/],
      [['webhooks', 'add', receiver.url, '--venue', 'x'], 2, /--venue is a positive integer/],
      [['webhooks', 'remove', 'abc'], 2, /ID is a positive integer/],
      [['webhooks', 'deliveries', '1', '--status', 'lost'], 2, /--status is pending, held, succeeded, failed/],
      [['webhooks', 'deliveries', '1', '--limit', '1000'], 2, /--limit is at most 100/],
      [['webhooks', 'remove', '999999'], 1, /\(webhook-not-found\)/],
      [['webhooks', 'test', '999999'], 1, /\(webhook-not-found\)/],
      [['webhooks', 'add', 'ftp://example.org/hook'], 1, /\(webhook-url-refused\)/],
      [['webhooks', 'add', 'https://example.org/hook', '--types', 'event.exploded'], 1, /\(rest_invalid_param\)/],
      [['webhooks', 'list', '--as', 'nobody'], 67, /no user nobody/],
    ];
    for (const [args, code, message] of cases) {
      const res = await runCli(args, env);
      assert.equal(res.code, code, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, message, args.join(' '));
    }
    assert.equal(receiver.received.length, before);
  });
  it('add --secret-file: the endpoint gets the secret its receiver already holds (README), not printed again', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const file = join(dir, 'secret');
    writeFileSync(file, `${secret}\n`);
    const bad = join(dir, 'bad-secret');
    writeFileSync(bad, 'not-a-secret\n');
    const before = receiver.received.length;
    const refused = await runCli(['webhooks', 'add', `${receiver.url}/own`, '--secret-file', bad], env);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /^calendar: --secret-file/m);
    assert.equal((await runCli(['webhooks', 'add', `${receiver.url}/own`, '--secret-file', join(dir, 'none')], env)).code, 66);
    assert.equal(receiver.received.length, before);

    const add = await runCli(['webhooks', 'add', `${receiver.url}/own`, '--secret-file', file], env);
    assert.equal(add.code, 0, add.stderr);
    assert.ok(!add.stdout.includes(secret), add.stdout);
    assert.doesNotMatch(add.stdout, /whsec_/);
    // the check on create was signed with it
    const check = receiver.received.at(-1)!;
    assert.equal(check.path, '/own');
    new Webhook(secret).verify(check.body, check.headers as Record<string, string>);
  });
});
