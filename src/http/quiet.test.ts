import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { markAnsweredBeforeTheFramework, trackRequests, waitForQuiet } from './quiet.js';

/**
 * A server that holds every request until the test answers it (`held`, in arrival order); `first` runs on each
 * request before that, as a listener registered before trackRequests' would.
 */
function holdingServer(first?: (req: IncomingMessage) => void) {
  const held: (() => void)[] = [];
  const server = createServer((req, res) => {
    first?.(req);
    held.push(() => res.end('ok'));
  });
  return {
    server,
    held,
    listen: () => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
    /** A GET, resolved when its answer has been read. */
    get: (path = '/') =>
      new Promise<void>((resolve, reject) => {
        const { port } = server.address() as AddressInfo;
        request({ port, host: '127.0.0.1', path }, (res) => res.resume().on('end', resolve))
          .on('error', reject)
          .end();
      }),
    /** Until `n` requests are held. */
    async holding(n: number) {
      while (held.length < n) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
}

describe('trackRequests', () => {
  it('counts the requests being answered, and wait() resolves when none is, or after maxWaitMs', async () => {
    const { server, held, listen, get, holding } = holdingServer();
    const quiet = trackRequests(server, { maxWaitMs: 200 });
    await listen();
    try {
      assert.equal(quiet.inFlight(), 0);
      let t0 = performance.now();
      await quiet.wait();
      // (well under maxWaitMs, not a few milliseconds: the suites run side by side on two cores)
      assert.ok(performance.now() - t0 < 100, 'at once when idle');

      const answered = [get(), get()];
      await holding(2);
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
      await holding(1);
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
    const { server, held, listen, get, holding } = holdingServer();
    const answering = new Int32Array(new SharedArrayBuffer(4));
    trackRequests(server, { maxWaitMs: 200, publish: answering });
    await listen();
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
      await holding(1);
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
      await holding(1);
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
    // the earlier listener (fast-revalidation.ts' place) marks /fast; every request is held
    const { server, held, listen, get, holding } = holdingServer((req) => {
      if (req.url === '/fast') markAnsweredBeforeTheFramework(req);
    });
    const quiet = trackRequests(server, { maxWaitMs: 200 });
    await listen();
    try {
      const fast = get('/fast');
      await holding(1);
      assert.equal(quiet.inFlight(), 0, 'the marked request is not counted');
      const slow = get('/slow');
      await holding(2);
      assert.equal(quiet.inFlight(), 1);
      for (const answer of held.splice(0)) answer();
      await Promise.all([fast, slow]);
      assert.equal(quiet.inFlight(), 0);
    } finally {
      server.close();
    }
  });
});
