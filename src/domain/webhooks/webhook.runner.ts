/**
 * Runs webhooks off the request path (issue 18): every `intervalMs` this process fans new changes out into
 * deliveries and sends what is due, at most `concurrency` deliveries of one endpoint at a time; a replay's
 * deliveries (ordered) one at a time, in seq order. Several processes may run it over one database: the
 * fan-out's cursor and each delivery are held by one of them at a time (WebhookStore), and what a process that
 * died held is taken over when its lease runs out — so every delivery is made, after a restart too.
 */
import { randomUUID } from 'node:crypto';
import type { WebhookObjects, WebhookService } from './webhook.service.js';

export interface WebhookRunner {
  /** One round now: fan out, then start what is due (tests; the timer calls it too). */
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
  options: { readonly intervalMs?: number; readonly timer?: boolean } = {},
): WebhookRunner {
  const owner = `${process.pid}-${randomUUID()}`;
  const inFlight = new Map<number, number>();
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

  /**
   * Claims what is due for an endpoint, as many as it has free slots, and starts sending; each send that ends
   * fills its slot again at once (a busy endpoint is not held to one batch per tick).
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
        const room = webhooks.concurrency - (inFlight.get(endpointId) ?? 0);
        if (room <= 0 || stopped) return;
        const claimed = await webhooks.claim(endpointId, owner, room);
        if (claimed.length === 0) return;
        // a replay's deliveries go one after another, in seq order, in one slot
        const ordered = claimed.filter((d) => d.ordered === 1);
        const lanes = [...claimed.filter((d) => d.ordered !== 1).map((d) => [d]), ...(ordered.length > 0 ? [ordered] : [])];
        for (const lane of lanes) {
          inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
          track(
            (async () => {
              for (const d of lane) await webhooks.send(d, owner, objects);
            })()
              .catch(onError)
              .finally(() => {
                inFlight.set(endpointId, (inFlight.get(endpointId) ?? 1) - 1);
                if (!stopped) track(fill(endpointId).catch(onError));
              }),
          );
        }
      } while (again.has(endpointId));
    } finally {
      filling.delete(endpointId);
    }
  };

  const round = async () => {
    await webhooks.fanOut();
    for (const endpointId of await webhooks.dueEndpoints()) await fill(endpointId);
  };

  const tick = () => {
    ticking ??= round()
      .catch(onError)
      .finally(() => {
        ticking = undefined;
      });
    return ticking;
  };

  const timer = options.timer === false ? undefined : setInterval(() => void tick(), options.intervalMs ?? 200);
  timer?.unref();
  void tick();

  const idle = async () => {
    while (ticking || work.size > 0) await Promise.all([ticking, ...work]);
  };
  return {
    tick,
    idle,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await idle();
    },
  };
}
