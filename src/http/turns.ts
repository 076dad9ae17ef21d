/**
 * Reads take turns of the event loop when they crowd it (issue 17: "no request blocks the event loop"; p99 under
 * load). Since libuv 1.45 (Node 20) a listening socket accepts one connection per turn of the loop
 * (libuv/libuv#3696): while every turn ran the work of all the reads that had arrived — on SQLite a read's work
 * is synchronous, 64 of them ~120–200 ms a turn — a burst of new connections was let in one per turn, and the
 * first request of the last of 64 waited 3–5 s (measured with a bare `node:http` server doing 3 ms of work a
 * request: the same staircase; the service's uncached scenarios showed p99s of 2–3 s from it).
 *
 * So a read that arrives when another has already started its work in this turn waits for a turn of its own,
 * first come first served: the loop polls its sockets (and accepts) between two reads' work. A read with the
 * loop to itself starts at once. Writes do not queue here: SQLite commits those that arrive together in one
 * group (sqlite.dialect.ts), and one a turn would commit them one by one. Answers from the response cache and
 * fast revalidations never get this far.
 *
 * Written here: a flag, a queue and setImmediate (an immediate set from inside one runs in the next turn).
 */
export class Turns {
  /** A read started its work in this turn of the loop. */
  private taken = false;
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Undefined: start now. A promise: start when it settles, in a later turn, after those that waited before. */
  take(): Promise<void> | undefined {
    if (!this.taken && this.waiting.length === 0) {
      this.taken = true;
      this.schedule();
      return undefined;
    }
    const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.schedule();
    return turn;
  }

  /** Reads waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.next);
  }

  /** At the end of a turn: the next waiter gets the next one (its work runs as this callback returns). */
  private readonly next = (): void => {
    this.scheduled = false;
    const first = this.waiting.shift();
    this.taken = first !== undefined;
    if (first === undefined) return;
    first();
    this.schedule();
  };
}
