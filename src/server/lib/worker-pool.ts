import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * A pool of worker threads for heavy work that must not run on the event loop beside the media hub
 * (credential analysis, PDF sanitising). Threads start as work waits, up to `size`; further work
 * waits in order in a bounded queue (the caller refuses beyond `maxWaiting`). A job past its time
 * bound is settled by `timedOut`, and its thread is terminated and replaced; a thread that fails
 * rejects its job with `unavailable()`. A thread says `{ ready: true }` once it has loaded, then
 * answers each message with an answer carrying the message's id.
 */
export interface WorkerPoolSpec<Payload, Answer, Result> {
  entry: URL;
  size: number;
  maxWaiting: number;
  /** Settles the job an answer is for. */
  settle(answer: Answer, job: PoolJob<Payload, Result>): void;
  /** Settles a job that ran past its time bound (its thread is replaced after). */
  timedOut(job: PoolJob<Payload, Result>): void;
  /** The error a job gets when its thread fails or the pool stops. */
  unavailable(): Error;
  /** The error a caller gets when the queue is full. */
  busy(): Error;
  /** Buffers moved to the thread instead of copied. */
  transfer?(message: Payload & { id: number }): ArrayBuffer[];
  /** Called as a thread begins a job. */
  onStart?(): void;
  /** Bounds on each thread's memory: a job past them ends its thread (settled by `failed`). */
  resourceLimits?: ResourceLimits;
  /** Settles the job whose thread failed under it (by default it gets `unavailable()`). */
  failed?(job: PoolJob<Payload, Result>, error: unknown): void;
}

export interface PoolJob<Payload, Result> {
  message: Payload & { id: number };
  timeoutMs: number;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

interface Slot<Payload, Result> {
  worker: Worker;
  isReady: boolean;
  job: PoolJob<Payload, Result> | null;
  timer: NodeJS.Timeout | null;
}

export interface WorkerPool<Payload, Result> {
  /** Runs one job; rejects at once with `busy()` when the queue is full. */
  run(payload: Payload, timeoutMs: number): Promise<Result>;
  /**
   * Starts a thread ahead of the first job, when none runs, and resolves once one is ready (or the
   * one it started failed): the first job then does not wait for a thread to load. An idle thread
   * does not keep the process alive.
   */
  warm(): Promise<void>;
  /** Threads loaded and ready for a job. */
  readyThreads(): number;
  /** Stops every thread; jobs running or waiting fail with `unavailable()`; the next job starts a new thread. */
  stop(): Promise<void>;
}

export function createWorkerPool<Payload, Answer extends { id?: number; ready?: true }, Result>(
  spec: WorkerPoolSpec<Payload, Answer, Result>,
): WorkerPool<Payload, Result> {
  const slots: Slot<Payload, Result>[] = [];
  const queue: PoolJob<Payload, Result>[] = [];
  /** Callers of warm() waiting for a thread to load. */
  let waitingForReady: Array<() => void> = [];
  let nextId = 1;

  function wakeWarmers(): void {
    const waiting = waitingForReady;
    waitingForReady = [];
    for (const wake of waiting) wake();
  }

  function finish(slot: Slot<Payload, Result>): PoolJob<Payload, Result> | null {
    const job = slot.job;
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = null;
    slot.timer = null;
    slot.worker.unref();
    return job;
  }

  function silence(worker: Worker): void {
    worker.removeAllListeners();
    // A terminated thread may still report an error while it stops; nothing waits on it any more.
    worker.on('error', () => undefined);
  }

  /** Ends a slot's thread (after a time-out or a crash); dispatch starts another if work waits. */
  function replace(slot: Slot<Payload, Result>): void {
    const index = slots.indexOf(slot);
    silence(slot.worker);
    void slot.worker.terminate();
    if (index >= 0) slots.splice(index, 1);
    dispatch();
  }

  function startSlot(): void {
    const worker = new Worker(spec.entry, { execArgv: [], ...(spec.resourceLimits ? { resourceLimits: spec.resourceLimits } : {}) });
    const slot: Slot<Payload, Result> = { worker, isReady: false, job: null, timer: null };
    worker.on('message', (answer: Answer) => {
      if (answer.ready) {
        slot.isReady = true;
        wakeWarmers();
        dispatch();
        return;
      }
      if (slot.job?.message.id !== answer.id) return;
      const job = finish(slot);
      if (job) spec.settle(answer, job);
      dispatch();
    });
    const fail = (error: unknown) => {
      const job = finish(slot);
      if (job && spec.failed) spec.failed(job, error);
      else job?.reject(spec.unavailable());
      replace(slot);
      wakeWarmers();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the thread stopped (exit code ${code})`)));
    slots.push(slot);
  }

  function dispatch(): void {
    // More threads while jobs wait for none and the pool has room.
    let unserved = queue.length - slots.filter((slot) => !slot.job).length;
    while (unserved > 0 && slots.length < spec.size) {
      startSlot();
      unserved -= 1;
    }
    for (const slot of slots) {
      if (queue.length === 0) break;
      if (!slot.isReady || slot.job) continue;
      const job = queue.shift() as PoolJob<Payload, Result>;
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(() => {
        if (slot.job !== job) return;
        finish(slot);
        spec.timedOut(job);
        replace(slot);
      }, job.timeoutMs);
      slot.worker.postMessage(job.message, spec.transfer?.(job.message) ?? []);
      spec.onStart?.();
    }
    // A queued job keeps the process alive while its thread starts.
    for (const slot of slots) if (!slot.isReady && queue.length > 0) slot.worker.ref();
  }

  return {
    run(payload, timeoutMs) {
      if (queue.length >= spec.maxWaiting) return Promise.reject(spec.busy());
      return new Promise<Result>((resolve, reject) => {
        queue.push({ message: { ...payload, id: nextId++ }, timeoutMs, resolve, reject });
        dispatch();
      });
    },
    warm() {
      if (slots.some((slot) => slot.isReady)) return Promise.resolve();
      const ready = new Promise<void>((resolve) => waitingForReady.push(resolve));
      if (slots.length === 0) {
        startSlot();
        (slots.at(-1) as Slot<Payload, Result>).worker.unref();
      }
      return ready;
    },
    readyThreads() {
      return slots.filter((slot) => slot.isReady).length;
    },
    async stop() {
      for (const job of queue.splice(0)) job.reject(spec.unavailable());
      const stopping = slots.splice(0);
      for (const slot of stopping) {
        silence(slot.worker);
        if (slot.timer) clearTimeout(slot.timer);
        slot.job?.reject(spec.unavailable());
      }
      wakeWarmers();
      await Promise.all(stopping.map((slot) => slot.worker.terminate()));
    },
  };
}

/** The buffers of a job's `bytes` to move to its thread: a private copy of the caller's (see copyForTransfer). */
export const transferBytes = (message: { bytes: Uint8Array }): ArrayBuffer[] => [message.bytes.buffer as ArrayBuffer];

/**
 * A private copy of bytes to hand to a thread: the buffer is transferred, so the caller's stays
 * usable, and a Buffer from Node's pool would take its neighbours along.
 */
export function copyForTransfer(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}
