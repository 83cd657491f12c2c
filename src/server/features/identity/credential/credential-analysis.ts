import { EventEmitter } from 'node:events';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AppError } from '#server/lib/errors.ts';
import { toUnreadable, type CredentialReading, type StatedPerson } from './credential-checks.ts';
import type { CredentialImages } from './credential-reader.ts';
import type { AnalysisJob } from './credential-worker.ts';

/**
 * Credential analysis off the main thread. Decoding a photo, nine PDF417 passes and OCR take from
 * a fraction of a second to minutes (OCR on a noisy image): on the main thread they would stall
 * every request and the media hub beside it. A pool of worker threads, one fewer than the
 * machine's cores (at least one), runs them; further jobs wait in order. A job that runs past its
 * time bound fails with a sentence, and its thread is terminated and replaced.
 */

/** Emits 'started' when a thread begins analysing an upload, so callers and tests can see it running. */
export const credentialAnalysisEvents = new EventEmitter();

const poolSize = Math.max(1, availableParallelism() - 1);
/** How many analyses may wait for a thread. */
export const maxWaiting = poolSize * 4;
const workerEntry = new URL('./credential-worker.mjs', import.meta.url);

interface Job {
  message: AnalysisJob;
  timeoutMs: number;
  resolve(reading: CredentialReading): void;
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
  new AppError(503, 'credential_reader_busy', 'Many ID photos are being read right now. Send yours again in a minute.', undefined, { 'retry-after': '60' });
const unavailable = () => new AppError(503, 'credential_reader_unavailable', 'Your ID could not be read just now. Send the photos again in a minute.');

function describeSeconds(ms: number): string {
  const seconds = Math.round(ms / 100) / 10;
  return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
}

/** The reading of a job stopped at its time bound: one failed check, saying so. */
function toTimedOut(input: CredentialImages, timeoutMs: number): CredentialReading {
  const photos = input.documentType === 'passport' ? 'photo' : 'photos';
  return toUnreadable(
    input.documentType,
    `Reading the ${photos} took longer than ${describeSeconds(timeoutMs)}, so it was stopped. Take the ${photos} again: only the ID in the frame, flat and in good light.`,
  );
}

function finish(slot: Slot): Job | null {
  const job = slot.job;
  if (slot.timer) clearTimeout(slot.timer);
  slot.job = null;
  slot.timer = null;
  slot.worker.unref();
  return job;
}

/** Ends a slot's thread (after a time-out or a crash) and starts another in its place. */
function replace(slot: Slot): void {
  const index = slots.indexOf(slot);
  slot.worker.removeAllListeners();
  // A terminated thread may still report an error while it stops; nothing waits on it any more.
  slot.worker.on('error', () => undefined);
  void slot.worker.terminate();
  if (index >= 0) slots.splice(index, 1);
  if (queue.length > 0) startSlot();
  dispatch();
}

function startSlot(): Slot {
  const worker = new Worker(workerEntry, { execArgv: [] });
  const slot: Slot = { worker, isReady: false, job: null, timer: null };
  worker.on('message', (message: { ready?: true; id?: number; reading?: CredentialReading; error?: string }) => {
    if (message.ready) {
      slot.isReady = true;
      dispatch();
      return;
    }
    if (slot.job?.message.id !== message.id) return;
    const job = finish(slot);
    if (message.reading) job?.resolve(message.reading);
    else job?.reject(new Error(`Credential analysis failed: ${message.error ?? 'no reading'}`));
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
  // More threads while jobs wait for none and the pool has room.
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
      job.resolve(toTimedOut(job.message.input, job.timeoutMs));
      replace(slot);
    }, job.timeoutMs);
    slot.worker.postMessage(job.message);
    credentialAnalysisEvents.emit('started');
  }
  // A queued job keeps the process alive while its thread starts.
  for (const slot of slots) if (!slot.isReady && queue.length > 0) slot.worker.ref();
}

/**
 * Analyses an ID's photos in the pool (see analyseCredential in credential-reader.ts). Resolves with
 * a failed reading when the analysis runs past `timeoutMs`; rejects with 503 when its thread fails.
 */
export function analyseCredentialInPool(input: CredentialImages, person: StatedPerson, now: Date, timeoutMs: number): Promise<CredentialReading> {
  // A bounded queue: beyond it a person hears at once to try again, instead of waiting minutes.
  if (queue.length >= maxWaiting) return Promise.reject(busy());
  return new Promise((resolve, reject) => {
    queue.push({ message: { id: nextId++, input, person, now: now.toISOString() }, timeoutMs, resolve, reject });
    dispatch();
  });
}

/** Stops every analysis thread (tests, shutdown); jobs still waiting fail with 503, and the next job starts a new thread. */
export async function stopCredentialAnalysis(): Promise<void> {
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
