import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AppError } from '#server/lib/errors.ts';
import type { SanitiseAnswer, SanitiseJob } from './sanitise-worker.ts';

/**
 * PDF sanitising off the main thread (decision 053). Parsing and re-writing a 50 MB PDF with
 * pdf-lib takes seconds of CPU: on the main thread it would stall every request and the media hub
 * beside it. As for ID photos (credential-analysis.ts), a pool of worker threads, one fewer than
 * the machine's cores (at least one), does the work; further files wait in a bounded queue. A file
 * that runs past its time bound fails with a sentence, and its thread is terminated and replaced.
 */

const poolSize = Math.max(1, availableParallelism() - 1);
/** How many files may wait for a thread. */
export const maxWaiting = poolSize * 8;
const workerEntry = new URL('./sanitise-worker.mjs', import.meta.url);

interface Job {
  message: SanitiseJob;
  timeoutMs: number;
  resolve(bytes: Uint8Array): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  isReady: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

const slots: Slot[] = [];
const queue: Job[] = [];
let nextId = 1;

const busy = () =>
  new AppError(503, 'safe_viewer_busy', 'Many documents are being prepared for the safe viewer right now. Try again in a minute.', undefined, {
    'retry-after': '60',
  });
const unavailable = () =>
  new AppError(503, 'safe_viewer_unavailable', 'The document could not be prepared for the safe viewer just now. Try again in a minute.');

function finish(slot: Slot): Job | null {
  const job = slot.job;
  if (slot.timer) clearTimeout(slot.timer);
  slot.job = null;
  slot.timer = null;
  slot.worker.unref();
  return job;
}

/** Ends a slot's thread (after a time-out or a crash) and starts another in its place if files wait. */
function replace(slot: Slot): void {
  const index = slots.indexOf(slot);
  slot.worker.removeAllListeners();
  slot.worker.on('error', () => undefined);
  void slot.worker.terminate();
  if (index >= 0) slots.splice(index, 1);
  dispatch();
}

function startSlot(): Slot {
  const worker = new Worker(workerEntry, { execArgv: [] });
  const slot: Slot = { worker, isReady: false, job: null, timer: null };
  worker.on('message', (message: SanitiseAnswer | { ready: true }) => {
    if ('ready' in message) {
      slot.isReady = true;
      dispatch();
      return;
    }
    if (slot.job?.message.id !== message.id) return;
    const job = finish(slot);
    if ('bytes' in message) job?.resolve(message.bytes);
    else if (message.isUnreadable) job?.reject(new AppError(422, 'broken_pdf', 'This document could not be read, so the safe viewer cannot show it.'));
    else job?.reject(new Error(`Sanitising failed: ${message.error}`));
    dispatch();
  });
  const fail = () => {
    const job = finish(slot);
    job?.reject(unavailable());
    replace(slot);
  };
  worker.on('error', fail);
  worker.on('exit', fail);
  slots.push(slot);
  return slot;
}

function dispatch(): void {
  let unserved = queue.length - slots.filter((slot) => !slot.job).length;
  while (unserved > 0 && slots.length < poolSize) {
    startSlot();
    unserved -= 1;
  }
  for (const slot of slots) {
    if (queue.length === 0) break;
    if (!slot.isReady || slot.job) continue;
    const job = queue.shift() as Job;
    slot.job = job;
    slot.worker.ref();
    slot.timer = setTimeout(() => {
      if (slot.job !== job) return;
      finish(slot);
      job.reject(new AppError(422, 'broken_pdf', 'This document took too long to prepare for the safe viewer, so it was stopped.'));
      replace(slot);
    }, job.timeoutMs);
    slot.worker.postMessage(job.message, [job.message.bytes.buffer as ArrayBuffer]);
  }
  // A queued file keeps the process alive while its thread starts.
  for (const slot of slots) if (!slot.isReady && queue.length > 0) slot.worker.ref();
}

/**
 * The sanitised copy of a PDF (sanitisePdf in sanitise-pdf.ts), made in the pool from a copy of
 * the bytes (the caller's buffer stays usable). Rejects with 422 for a file that cannot be
 * read or runs past `timeoutMs`, 503 when the queue is full or a thread fails.
 */
export function sanitiseInPool(bytes: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
  if (queue.length >= maxWaiting) return Promise.reject(busy());
  // A private copy: the buffer is transferred, and a Buffer from the pool would take its neighbours along.
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Promise((resolve, reject) => {
    queue.push({ message: { id: nextId++, bytes: copy }, timeoutMs, resolve, reject });
    dispatch();
  });
}

/** Stops every sanitising thread (tests, shutdown); files still waiting fail with 503. */
export async function stopSanitising(): Promise<void> {
  for (const job of queue.splice(0)) job.reject(unavailable());
  const stopping = slots.splice(0);
  for (const slot of stopping) {
    const job = slot.job;
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => undefined);
    if (slot.timer) clearTimeout(slot.timer);
    job?.reject(unavailable());
  }
  await Promise.all(stopping.map((slot) => slot.worker.terminate()));
}
