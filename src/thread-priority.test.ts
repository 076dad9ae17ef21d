import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { BACKGROUND_NICE } from './thread-priority.js';

describe('lowerThisThread', () => {
  it('lowers the thread that calls it and not the process (Linux)', { skip: process.platform !== 'linux' }, async () => {
    const before = getPriority();
    // a thread that lowers itself and reports its own nice value
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       import(${JSON.stringify(new URL('./thread-priority.js', import.meta.url).href)}).then((m) => {
         const nice = m.lowerThisThread();
         parentPort.postMessage({ nice, read: require('node:os').getPriority() });
       });`,
      { eval: true },
    );
    const answer = await new Promise<{ nice: number | undefined; read: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    assert.equal(answer.nice, Math.max(before, BACKGROUND_NICE));
    assert.equal(answer.read, Math.max(before, BACKGROUND_NICE));
    assert.equal(getPriority(), before, "the main thread's priority is unchanged");
  });
});
