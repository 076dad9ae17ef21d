/**
 * The process entry: load the configuration, open and migrate the database, create the first administrator
 * if asked, build the app and listen. The only file that listens. With WORKERS > 1 the primary process
 * prepares the database once and forks that many workers sharing the port (caches stay correct across them:
 * they check the database's data version).
 *
 * SIGTERM/SIGINT close gracefully: the listener stops accepting, in-flight requests finish, then the database
 * closes.
 *
 * With `TLS_CERT`/`TLS_KEY` every worker serves HTTPS itself (each process reads the files when it starts).
 */
import cluster from 'node:cluster';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp } from './app.js';
import type { Config, TlsFiles } from './config/config.js';
import { startImportRunner } from './domain/imports/import.runner.js';
import { UserService } from './domain/users/user.service.js';
import { startWebhookRunner } from './domain/webhooks/webhook.runner.js';
import { trackRequests } from './http/quiet.js';
import { openStorage, type Storage } from './storage/storage.js';
import type { WebhookWorkerData, WebhookWorkerMessage } from './webhook-worker.js';

/** How long a step of the webhook runner waits at most for the API to answer what it is answering. */
const QUIET_WAIT_MS = 25;

/**
 * The webhook runner on its own thread (webhook-worker.ts): started with the process, stopped with it. A thread
 * that fails is logged and started again after a second (what it held is sent once its lease runs out).
 */
function startWebhookThread(log: FastifyBaseLogger, answering: Int32Array): { stop(): Promise<void> } {
  let thread: Worker | undefined;
  let stopping = false;
  let restart: NodeJS.Timeout | undefined;
  const start = () => {
    const data: WebhookWorkerData = { answering, quietWaitMs: QUIET_WAIT_MS };
    const w = new Worker(new URL('./webhook-worker.js', import.meta.url), { workerData: data });
    thread = w;
    w.on('message', (m: WebhookWorkerMessage) => {
      if (m.type === 'error') log.error({ err: { message: m.message, stack: m.stack } }, 'sending webhooks failed');
    });
    w.on('error', (error) => log.error({ err: error }, 'the webhook thread failed'));
    w.on('exit', () => {
      if (thread === w) thread = undefined;
      if (!stopping) restart = setTimeout(start, 1000).unref();
    });
  };
  start();
  return {
    async stop() {
      stopping = true;
      clearTimeout(restart);
      const w = thread;
      if (!w) return;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.postMessage('stop');
      await exited;
    },
  };
}

/** Migrations, statistics and the first administrator: once, before any worker serves. */
async function prepareDatabase(config: Config): Promise<void> {
  const storage = await openStorage(config.database, { poolSize: 2 });
  try {
    await prepare(storage, config);
  } finally {
    await storage.close();
  }
}

async function prepare(storage: Storage, config: Config): Promise<void> {
  await storage.migrate();
  await storage.optimize();
  if (await new UserService(storage).ensureAdmin(config.adminLogin, config.adminPassword)) {
    process.stdout.write(`created the first administrator ${config.adminLogin}\n`);
  }
}

/** A database in memory exists only in the connection that opened it: it is prepared there, not in one closed before. */
function inMemory(config: Config): boolean {
  return config.database.dialect === 'sqlite' && config.database.path === ':memory:';
}

export async function serve(config: Config, tls?: TlsFiles): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) return primary(config);
  if (cluster.isPrimary && !inMemory(config)) await prepareDatabase(config);
  return worker(config, tls);
}

async function worker(config: Config, tls: TlsFiles | undefined): Promise<void> {
  const storage = await openStorage(config.database);
  if (inMemory(config)) await prepare(storage, config);
  const app = await buildApp(config, storage, tls ? { https: { cert: tls.cert, key: tls.key } } : {});

  // scheduled posts come due: checked at start and every minute (any number of processes may do it at once)
  // and the occurrences of recurring series without an end keep reaching the horizon (a cheap check when they do)
  const publishDue = () =>
    Promise.all([
      app.services.events.publishDue().catch((error: unknown) => app.log.error({ err: error }, 'publishing scheduled posts failed')),
      app.services.events.extendSeries().catch((error: unknown) => app.log.error({ err: error }, 'extending recurring series failed')),
    ]);
  await publishDue();
  const scheduler = setInterval(() => void publishDue(), 60_000);
  scheduler.unref();
  // the change log keeps SYNC_RETENTION_DAYS of changes (FEATURES.md §2.3): older ones go, hourly
  const purgeChanges = () =>
    Promise.all([
      app.services.sync.purge().catch((error: unknown) => app.log.error({ err: error }, 'purging the change log failed')),
      app.services.webhooks.purge().catch((error: unknown) => app.log.error({ err: error }, 'purging the webhook delivery log failed')),
    ]);
  void purgeChanges();
  const purger = setInterval(() => void purgeChanges(), 3_600_000);
  purger.unref();
  // import jobs (FEATURES.md §3.4): queued ones, and ones a dead process left running, are run here
  const importer = startImportRunner(app.services.imports, (error) => app.log.error({ err: error }, 'running import jobs failed'));
  // webhooks (FEATURES.md §4): the change log's new rows fanned out and sent, off the request path
  // (on PostgreSQL on a thread of its own, off the API's event loop and pool; see webhook-worker.ts)
  // (each of the runner's steps waits until no request is being answered, 25 ms at most; see http/quiet.ts:
  // on the API's loop on SQLite, and on PostgreSQL through the count this thread publishes)
  // (the count is published for the thread only on PostgreSQL: on SQLite nothing reads it there)
  const answering = config.database.dialect === 'postgres' ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
  const quiet = trackRequests(app.server, { maxWaitMs: QUIET_WAIT_MS, publish: answering });
  const webhooks = answering
    ? startWebhookThread(app.log, answering)
    : startWebhookRunner(app.services.webhooks, app.webhookObjects, (error) => app.log.error({ err: error }, 'sending webhooks failed'), {
        yieldTo: quiet.wait,
      });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    clearInterval(scheduler);
    clearInterval(purger);
    // a job cut short here is resumed by the next process once its lease runs out
    void importer.stop();
    // a delivery in flight is finished or, if cut short, sent again once its lease runs out
    const webhooksStopped = webhooks.stop().catch((error: unknown) => app.log.error({ err: error }, 'stopping webhooks failed'));
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    // keep-alive sockets that go idle after their last answer are closed too, not left to time out
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    try {
      await app.close();
      clearInterval(sweep);
      await webhooksStopped;
      await storage.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}

async function primary(config: Config): Promise<void> {
  await prepareDatabase(config);
  let stopping = false;
  const fork = () => cluster.fork();
  for (let i = 0; i < config.workers; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    setTimeout(fork, 500);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
    setTimeout(() => process.exit(1), 12_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
