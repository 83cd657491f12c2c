import { availableParallelism } from 'node:os';
import { AppError } from '#server/lib/errors.ts';
import { copyForTransfer, createWorkerPool } from '#server/lib/worker-pool.ts';
import type { PlaceholderMark } from '#server/providers/signing/pades.ts';
import type { SealAnswer, SealJob } from './seal-worker.ts';

/**
 * The notarized document is rendered in a pool of worker threads (decision 070), as uploads are
 * checked (pdf-check-pool.ts): reading the original, drawing the fields, the certificate and audit
 * pages, and writing the update never run on the event loop beside the media hub, however large the
 * original. The thread adds the signature's placeholder; the caller signs (the notary's key never
 * goes to a thread). Each thread's heap is bounded like an upload check's.
 */

const poolSize = Math.max(1, availableParallelism() - 1);
/** Documents waiting for a thread: a job has a few, and several notaries seal at once. */
export const maxWaiting = 32;
const sealHeapMb = 1024;
/** Far past any document the upload check accepts (100 pages render in milliseconds); a thread past it is replaced. */
export const sealTimeoutMs = 120_000;
const workerEntry = new URL('./seal-worker.mjs', import.meta.url);

const busy = () =>
  new AppError(503, 'sealing_busy', 'Many documents are being sealed right now, so nothing was sealed. Try again in a minute.', undefined, {
    'retry-after': '60',
  });
const unavailable = () => new AppError(503, 'sealing_unavailable', 'The document could not be sealed just now, so nothing was sealed. Try again in a minute.');

type Rendered = { pdf: Buffer; pageCount: number; fullSaveReason: string | null; mark: PlaceholderMark };

const pool = createWorkerPool<Omit<SealJob, 'id'>, SealAnswer | { ready: true; id?: undefined }, Rendered>({
  entry: workerEntry,
  size: poolSize,
  maxWaiting,
  resourceLimits: { maxOldGenerationSizeMb: sealHeapMb, maxYoungGenerationSizeMb: 32 },
  settle(answer, job) {
    if ('pdf' in answer) {
      const pdf = Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.byteLength);
      job.resolve({ pdf, pageCount: answer.pageCount, fullSaveReason: answer.fullSaveReason, mark: answer.mark });
    } else if ('error' in answer) job.reject(new Error(answer.error));
    else job.reject(unavailable());
  },
  // What the renderer could not finish is the document's to answer for (the caller says so with its name).
  timedOut(job) {
    job.reject(new Error(`rendering the document took longer than ${sealTimeoutMs / 1000} seconds`));
  },
  failed(job, error) {
    if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') job.reject(new Error('rendering the document ran out of memory'));
    else job.reject(unavailable());
  },
  unavailable,
  busy,
  transfer: (message) => [message.original.buffer as ArrayBuffer],
});

/**
 * renderNotarizedPdf in a thread of the pool, from a copy of the original (the caller's stays
 * usable), with the signature's placeholder for `placeholder` added before the save; the result's
 * `mark` is what signPreparedPdf fills. A document the renderer cannot write rejects with a plain
 * Error; a full pool or a failed thread with an AppError (503) that says so.
 */
export function renderInPool(input: Omit<SealJob, 'id'>): Promise<Rendered> {
  return pool.run({ ...input, original: copyForTransfer(input.original) }, sealTimeoutMs);
}

/** Starts a sealing thread ahead of the first document (at server start): resolves once it is ready. */
export function startSealing(): Promise<void> {
  return pool.warm();
}

/** Sealing threads loaded and ready. */
export function readySealingThreads(): number {
  return pool.readyThreads();
}

/** Stops every sealing thread (tests, shutdown); documents still waiting fail with 503. */
export function stopSealing(): Promise<void> {
  return pool.stop();
}
