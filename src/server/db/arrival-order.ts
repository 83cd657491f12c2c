import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Embedded PGlite runs one statement at a time, in the app's own event loop. Left to its own FIFO lock,
 * each statement of a request queues again behind every request that arrived meanwhile, so a request of
 * k statements waits k rounds of the queue and some wait many seconds while others are served (decision
 * 029). Here each HTTP request takes a ticket when it arrives and every statement it runs
 * carries it: the database serves the oldest ticket first, so requests finish in the order they came.
 * Work outside a request (timers, start-up) takes a ticket when its statement is asked for.
 *
 * Between two statements the gate lets the event loop turn once (setImmediate), so sockets (the media
 * hub's packets, signaling, new requests) are served between statements, never after a whole queue.
 */
const arrival = new AsyncLocalStorage<number>();
let lastTicket = 0;

/** Runs `work` (and everything it starts) as one arrival: used by the app's first request hook. */
export function asOneArrival<T>(work: () => T): T {
  lastTicket += 1;
  return arrival.run(lastTicket, work);
}

interface Waiter {
  ticket: number;
  order: number;
  start: () => void;
}

export interface ArrivalGate {
  /** Runs `work` alone, after every waiting statement of an earlier arrival. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Statements waiting now (for the benchmarks and tests). */
  readonly waiting: number;
}

export function createArrivalGate(): ArrivalGate {
  const waiting: Waiter[] = [];
  let isBusy = false;
  let order = 0;

  // A binary heap by (ticket, order): the oldest arrival first, its statements in the order asked.
  const before = (left: Waiter, right: Waiter) => left.ticket < right.ticket || (left.ticket === right.ticket && left.order < right.order);
  const push = (waiter: Waiter) => {
    waiting.push(waiter);
    let index = waiting.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(waiting[index] as Waiter, waiting[parent] as Waiter)) break;
      [waiting[index], waiting[parent]] = [waiting[parent] as Waiter, waiting[index] as Waiter];
      index = parent;
    }
  };
  const pop = (): Waiter | undefined => {
    const top = waiting[0];
    const last = waiting.pop();
    if (waiting.length > 0 && last) {
      waiting[0] = last;
      let index = 0;
      for (;;) {
        const left = index * 2 + 1;
        const right = left + 1;
        let smallest = index;
        if (left < waiting.length && before(waiting[left] as Waiter, waiting[smallest] as Waiter)) smallest = left;
        if (right < waiting.length && before(waiting[right] as Waiter, waiting[smallest] as Waiter)) smallest = right;
        if (smallest === index) break;
        [waiting[index], waiting[smallest]] = [waiting[smallest] as Waiter, waiting[index] as Waiter];
        index = smallest;
      }
    }
    return top;
  };

  const dispatch = () => {
    if (isBusy) return;
    const next = pop();
    if (!next) return;
    isBusy = true;
    next.start();
  };
  // A statement's end frees the gate only after a turn of the loop (the check phase, after the poll of
  // the sockets), whether or not another waits: a statement asked meanwhile queues, so requests read
  // in one poll never run their statements back to back in one turn.
  const release = () => {
    isBusy = false;
    dispatch();
  };

  return {
    get waiting() {
      return waiting.length;
    },
    async run<T>(work: () => Promise<T>): Promise<T> {
      let ticket = arrival.getStore();
      if (ticket === undefined) {
        lastTicket += 1;
        ticket = lastTicket;
      }
      order += 1;
      const started = new Promise<void>((resolve) => push({ ticket, order, start: resolve }));
      if (!isBusy) dispatch();
      await started;
      try {
        return await work();
      } finally {
        setImmediate(release);
      }
    },
  };
}
