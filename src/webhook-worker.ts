/**
 * The webhook runner on a thread of its own (issue 18: "delivery never slows the API"). On PostgreSQL a
 * service process starts this thread beside its event loop: fan-out, claims, renders of `full` payloads,
 * signing and the HTTP sends run here, on their own database pool, so the API's loop and pool serve requests
 * only (bench/webhooks.ts measured the API's write p50 rise from ~10 ms to 300 ms and more with the runner on the
 * API's loop, the loop then ~90 % busy). SQLite keeps the runner on the API's loop: one connection per process
 * writes there, and a second one on another thread would make the API's writes wait on its locks.
 *
 * Its steps (fan-out, claims, sends) wait until the API's thread answers no request, as on SQLite (http/quiet.ts):
 * the thread has its own loop, but the machine's cores and the database server are shared, and the webhooks bench
 * measured the API's write p99 at twice the one without webhooks while the thread worked through writes.
 *
 * The thread reads the same environment as its process (worker threads share process.env) and answers the
 * parent's `stop` by finishing what it sends, then closing its database and ending.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from './config/config.js';
import { createServices } from './domain/services.js';
import { startWebhookRunner } from './domain/webhooks/webhook.runner.js';
import { waitForQuiet } from './http/quiet.js';
import { Urls } from './http/urls.js';
import { webhookObjects } from './http/webhook-objects.js';
import { openStorage } from './storage/storage.js';
import { lowerThisThread } from './thread-priority.js';

/** What the parent gives the thread: where it publishes how many requests it is answering (http/quiet.ts). */
export interface WebhookWorkerData {
  readonly answering: Int32Array;
  readonly quietWaitMs: number;
}

/** What the thread tells its parent. */
export type WebhookWorkerMessage = { readonly type: 'ready' } | { readonly type: 'error'; readonly message: string; readonly stack?: string };

const port = parentPort;
if (!port) throw new Error('webhook-worker.js runs as a worker thread (server.ts starts it)');

// below the API's thread on the machine's cores (see thread-priority.ts)
lowerThisThread();

const post = (message: WebhookWorkerMessage) => port.postMessage(message);
const report = (error: unknown) =>
  post({ type: 'error', message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined });

const config = loadConfig(process.env);
// (a small pool: the runner's statements are short, and the API keeps the database's other connections)
const storage = await openStorage(config.database, { poolSize: 4 });
const services = createServices(config, storage);
const data = workerData as WebhookWorkerData;
// each step waits for a moment when the API's thread answers no request (25 ms at most), as on SQLite
const runner = startWebhookRunner(services.webhooks, webhookObjects(services, new Urls(config.publicUrl)), report, {
  yieldTo: waitForQuiet(data.answering, data.quietWaitMs),
});
port.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  void (async () => {
    await runner.stop().catch(report);
    await storage.close().catch(report);
    port.close();
  })();
});
post({ type: 'ready' });
