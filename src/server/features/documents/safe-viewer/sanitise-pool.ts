import { availableParallelism } from 'node:os';
import { AppError } from '#server/lib/errors.ts';
import { copyForTransfer, createWorkerPool, transferBytes } from '#server/lib/worker-pool.ts';
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

const busy = () =>
  new AppError(503, 'safe_viewer_busy', 'Many documents are being prepared for the safe viewer right now. Try again in a minute.', undefined, {
    'retry-after': '60',
  });
const unavailable = () =>
  new AppError(503, 'safe_viewer_unavailable', 'The document could not be prepared for the safe viewer just now. Try again in a minute.');

const pool = createWorkerPool<Omit<SanitiseJob, 'id'>, SanitiseAnswer | { ready: true; id?: undefined }, Uint8Array>({
  entry: workerEntry,
  size: poolSize,
  maxWaiting,
  settle(answer, job) {
    if ('bytes' in answer) job.resolve(answer.bytes);
    else if ('isUnreadable' in answer && answer.isUnreadable)
      job.reject(new AppError(422, 'broken_pdf', 'This document could not be read, so the safe viewer cannot show it.'));
    else job.reject(new Error(`Sanitising failed: ${'error' in answer ? answer.error : 'no answer'}`));
  },
  timedOut(job) {
    job.reject(new AppError(422, 'broken_pdf', 'This document took too long to prepare for the safe viewer, so it was stopped.'));
  },
  unavailable,
  busy,
  transfer: transferBytes,
});

/**
 * The sanitised copy of a PDF (sanitisePdf in sanitise-pdf.ts), made in the pool from a copy of
 * the bytes (the caller's buffer stays usable). Rejects with 422 for a file that cannot be
 * read or runs past `timeoutMs`, 503 when the queue is full or a thread fails.
 */
export function sanitiseInPool(bytes: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
  return pool.run({ bytes: copyForTransfer(bytes) }, timeoutMs);
}

/** Stops every sanitising thread (tests, shutdown); files still waiting fail with 503. */
export function stopSanitising(): Promise<void> {
  return pool.stop();
}
