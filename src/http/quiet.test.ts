import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { ANSWERED_BEFORE_THE_FRAMEWORK, trackRequests, waitForQuiet } from './quiet.js';

describe('trackRequests', () => {
  it('counts the requests being answered, and wait() resolves when none is, or after maxWaitMs', async () => {
    const held: (() => void)[] = [];
    const server = createServer((_req, res) => held.push(() => res.end('ok')));
    const quiet = trackRequests(server, { maxWaitMs: 200 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const get = () =>
      new Promise<void>((resolve, reject) => {
        request({ port, host: '127.0.0.1', path: '/' }, (res) => res.resume().on('end', resolve))
          .on('error', reject)
          .end();
      });
    try {
      assert.equal(quiet.inFlight(), 0);
      let t0 = performance.now();
      await quiet.wait();
      assert.ok(performance.now() - t0 < 20, 'at once when idle');

      const answered = [get(), get()];
      while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(quiet.inFlight(), 2);
      let resolved = false;
      const waiting = quiet.wait().then(() => {
        resolved = true;
      });
      held.shift()?.();
      await answered[0];
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(resolved, false, 'one request is still being answered');
      held.shift()?.();
      await answered[1];
      await waiting;
      assert.equal(quiet.inFlight(), 0);

      // a request that is not answered: wait() gives up after maxWaitMs
      const hanging = get();
      while (held.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      t0 = performance.now();
      await quiet.wait();
      const waited = performance.now() - t0;
      assert.ok(waited >= 190 && waited < 1000, `waited ${waited} ms`);

      // several waiters while a request hangs: all of them go when their time is up, not one per maxWaitMs
      t0 = performance.now();
      const late: number[] = [];
      await Promise.all([1, 2, 3].map(() => quiet.wait().then(() => late.push(performance.now() - t0))));
      assert.ok(Math.max(...late) < 190 + 150, `the three waited ${late.map(Math.round).join(', ')} ms`);
      assert.ok(Math.min(...late) >= 190, `none before its time: ${late.map(Math.round).join(', ')} ms`);
      held.shift()?.();
      await hanging;
    } finally {
      server.close();
    }
  });

  it('hands out one turn per turn of the event loop while idle, first come first served', async () => {
    const quiet = trackRequests(createServer(), { maxWaitMs: 200 });
    let turns = 0;
    const count = () => {
      turns++;
      if (turns < 100) setImmediate(count);
    };
    setImmediate(count);
    const granted: { waiter: number; turn: number }[] = [];
    await Promise.all([1, 2, 3, 4].map((waiter) => quiet.wait().then(() => granted.push({ waiter, turn: turns }))));
    assert.deepEqual(
      granted.map((g) => g.waiter),
      [1, 2, 3, 4],
    );
    assert.equal(new Set(granted.map((g) => g.turn)).size, 4, `each in a turn of its own: ${JSON.stringify(granted)}`);
  });

  it('publishes the count to another thread, whose waitForQuiet resolves when it falls to 0, or after maxWaitMs', async () => {
    const held: (() => void)[] = [];
    const server = createServer((_req, res) => held.push(() => res.end('ok')));
    const answering = new Int32Array(new SharedArrayBuffer(4));
    trackRequests(server, { maxWaitMs: 200, publish: answering });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const get = () =>
      new Promise<void>((resolve, reject) => {
        request({ port, host: '127.0.0.1', path: '/' }, (res) => res.resume().on('end', resolve))
          .on('error', reject)
          .end();
      });
    // a thread of its own, as the webhook thread: says when it starts waiting, then how long the wait took
    const waitInThread = (maxWaitMs: number) => {
      const code = `import(${JSON.stringify(new URL('./quiet.js', import.meta.url).href)}).then(async ({ waitForQuiet }) => {
        const { parentPort, workerData } = await import('node:worker_threads');
        parentPort.postMessage('waiting');
        const t0 = performance.now();
        await waitForQuiet(workerData.answering, workerData.maxWaitMs)();
        parentPort.postMessage(performance.now() - t0);
      });`;
      const w = new Worker(code, { eval: true, workerData: { answering, maxWaitMs } });
      let resolved = false;
      const waiting = new Promise<void>((resolve) => w.once('message', () => resolve()));
      const done = new Promise<number>((resolve, reject) => {
        w.on('message', (m: unknown) => {
          if (typeof m !== 'number') return;
          resolved = true;
          resolve(m);
        });
        w.once('error', reject);
        w.once('exit', () => reject(new Error('the thread ended before its wait did')));
      });
      return { waiting, done, resolved: () => resolved };
    };
    try {
      assert.ok((await waitInThread(5000).done) < 50, 'at once when nothing is answered');

      const answered = get();
      while (held.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(Atomics.load(answering, 0), 1);
      const thread = waitInThread(5000);
      await thread.waiting;
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(thread.resolved(), false, 'still waiting while a request is being answered');
      held.shift()?.();
      await answered;
      const waited = await thread.done;
      assert.ok(waited >= 90 && waited < 1000, `until the request was answered: ${waited} ms`);
      assert.equal(Atomics.load(answering, 0), 0);

      const hanging = get();
      while (held.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      const gaveUp = await waitInThread(200).done;
      assert.ok(gaveUp >= 190 && gaveUp < 1000, `a request that is not answered: gave up after ${gaveUp} ms`);
      held.shift()?.();
      await hanging;
    } finally {
      server.close();
    }
  });
  // (waitForQuiet in this thread too: the same shared count)
  it('waitForQuiet in the same thread reads the published count', async () => {
    const answering = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(answering, 0, 2);
    const t0 = performance.now();
    await waitForQuiet(answering, 100)();
    assert.ok(performance.now() - t0 >= 90, 'waited its maxWaitMs while the count was not 0');
    Atomics.store(answering, 0, 0);
    const t1 = performance.now();
    await waitForQuiet(answering, 5000)();
    assert.ok(performance.now() - t1 < 50);
  });

  it('does not count a request an earlier listener marks as answered before the framework', async () => {
    const held: (() => void)[] = [];
    // the earlier listener (fast-revalidation.ts' place): marks and holds /fast, holds the others too
    const server = createServer((req, res) => {
      if (req.url === '/fast') (req as unknown as Record<symbol, boolean>)[ANSWERED_BEFORE_THE_FRAMEWORK] = true;
      held.push(() => res.end('ok'));
    });
    const quiet = trackRequests(server, { maxWaitMs: 200 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const get = (path: string) =>
      new Promise<void>((resolve, reject) => {
        request({ port, host: '127.0.0.1', path }, (res) => res.resume().on('end', resolve))
          .on('error', reject)
          .end();
      });
    try {
      const fast = get('/fast');
      while (held.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(quiet.inFlight(), 0, 'the marked request is not counted');
      const slow = get('/slow');
      while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(quiet.inFlight(), 1);
      for (const answer of held.splice(0)) answer();
      await Promise.all([fast, slow]);
      assert.equal(quiet.inFlight(), 0);
    } finally {
      server.close();
    }
  });
});
