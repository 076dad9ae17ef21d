/**
 * Runs webhooks off the request path (issue 18): every `intervalMs` this process fans new changes out into
 * deliveries and sends what is due, at most `concurrency` deliveries of one endpoint at a time; a replay's
 * deliveries (ordered) one at a time, in seq order. Several processes may run it over one database: the
 * fan-out's cursor and each delivery are held by one of them at a time (WebhookStore), and what a process that
 * died held is taken over when its lease runs out — so every delivery is made, after a restart too.
 *
 * Deliveries are claimed a batch at a time (`claimBatch`, a few times `concurrency`) and wait here for a free
 * slot: a claim is a write transaction, and one per delivery cost as much as the rest of the delivery's
 * statements (the bench, bench/webhooks.ts, measured the write path slowed by it). One that waits long has its
 * lease moved on before it is sent (WebhookService.send); what is left when the process stops is given back.
 */
import { randomUUID } from 'node:crypto';
import type { DeliveryRow } from '../../storage/stores/webhook.store.js';
import type { WebhookObjects, WebhookService } from './webhook.service.js';

export interface WebhookRunner {
  /**
   * One round: fan out, then start what is due (tests, the CLI). It covers every change committed before the
   * call: when a round is running, a new one follows it. (The timer's rounds join one that runs.)
   */
  tick(): Promise<void>;
  /** Waits until nothing is in flight (tests). */
  idle(): Promise<void>;
  /** Stops the timer and waits for the deliveries in flight. */
  stop(): Promise<void>;
}

export function startWebhookRunner(
  webhooks: WebhookService,
  objects: WebhookObjects,
  onError: (error: unknown) => void,
  options: {
    readonly intervalMs?: number;
    readonly timer?: boolean;
    /**
     * Awaited before each step (a fan-out, a claim, a send), until no request is being answered (http/quiet.ts:
     * on the API's own event loop on SQLite, a turn of the loop each; from the webhook thread on PostgreSQL), so
     * that the API's requests go first.
     */
    readonly yieldTo?: () => Promise<void>;
  } = {},
): WebhookRunner {
  const yieldTo = options.yieldTo ?? (() => Promise.resolve());
  const owner = `${process.pid}-${randomUUID()}`;
  const inFlight = new Map<number, number>();
  /** Claimed and not started yet, per endpoint: lanes, each sent in one slot (a replay's in seq order). */
  const waiting = new Map<number, DeliveryRow[][]>();
  /** Endpoints with a replay's lane claimed (waiting or in flight): the next is not claimed before it ends. */
  const replaying = new Set<number>();
  const work = new Set<Promise<unknown>>();
  /** Endpoints being filled now, and those to fill again when that is done (a slot came free meanwhile). */
  const filling = new Set<number>();
  const again = new Set<number>();
  let ticking: Promise<void> | undefined;
  let stopped = false;

  const track = (p: Promise<unknown>) => {
    work.add(p);
    void p.finally(() => work.delete(p));
  };

  const start = (endpointId: number, lane: DeliveryRow[]) => {
    const replay = lane[0].ordered === 1;
    inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
    track(
      (async () => {
        for (const d of lane) {
          await yieldTo();
          await webhooks.send(d, owner, objects);
        }
      })()
        .catch(onError)
        .finally(() => {
          inFlight.set(endpointId, (inFlight.get(endpointId) ?? 1) - 1);
          if (replay) replaying.delete(endpointId);
          if (!stopped) track(fill(endpointId).catch(onError));
        }),
    );
  };

  /**
   * Starts what waits for an endpoint, as many as it has free slots, claiming a batch when nothing waits; each
   * send that ends fills its slot again at once (a busy endpoint is not held to one batch per tick).
   */
  const fill = async (endpointId: number): Promise<void> => {
    if (filling.has(endpointId)) {
      again.add(endpointId);
      return;
    }
    filling.add(endpointId);
    try {
      do {
        again.delete(endpointId);
        if (stopped) return;
        const lanes = waiting.get(endpointId) ?? [];
        waiting.set(endpointId, lanes);
        if (lanes.length === 0 && (inFlight.get(endpointId) ?? 0) < webhooks.concurrency) {
          await yieldTo();
          const claimed = await webhooks.claim(endpointId, owner, webhooks.claimBatch, !replaying.has(endpointId));
          // a replay's deliveries go one after another, in seq order, in one slot
          const ordered = claimed.filter((d) => d.ordered === 1);
          if (ordered.length > 0) {
            replaying.add(endpointId);
            lanes.push(ordered);
          }
          for (const d of claimed) if (d.ordered !== 1) lanes.push([d]);
        }
        while (!stopped && lanes.length > 0 && (inFlight.get(endpointId) ?? 0) < webhooks.concurrency)
          start(endpointId, lanes.shift() as DeliveryRow[]);
      } while (again.has(endpointId));
    } finally {
      filling.delete(endpointId);
    }
  };

  const round = async () => {
    await yieldTo();
    await webhooks.fanOut();
    for (const endpointId of await webhooks.dueEndpoints()) await fill(endpointId);
  };

  /** A round asked for while one runs: it starts when that one ends (at most one waits; later asks join it; the timer's do not ask). */
  let next: Promise<void> | undefined;
  const tick = (): Promise<void> => {
    // a round that began before this call may have fanned out before the changes its caller committed: the
    // caller gets a round of its own after it, not that one
    if (ticking) {
      next ??= ticking.then(() => {
        next = undefined;
        return stopped ? undefined : tick();
      });
      return next;
    }
    ticking = round()
      .catch(onError)
      .finally(() => {
        ticking = undefined;
      });
    return ticking;
  };

  // (the timer's tick joins a round already running: rounds do not queue up behind a slow one)
  const timer = options.timer === false ? undefined : setInterval(() => void (ticking ?? tick()), options.intervalMs ?? 200);
  timer?.unref();
  void tick();

  const idle = async () => {
    while (ticking || next || work.size > 0) await Promise.all([ticking, next, ...work]);
  };
  return {
    tick,
    idle,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await idle();
      // what was claimed and not started goes back now, not when its lease runs out
      const left = [...waiting.values()].flat(2);
      waiting.clear();
      if (left.length > 0) await webhooks.release(left, owner).catch(onError);
    },
  };
}
