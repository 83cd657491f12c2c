import fs from 'node:fs';
import { availableParallelism } from 'node:os';
import { documentMessages } from '#shared/documents.ts';
import type { ErrorCode } from '#shared/errors.ts';
import { AppError } from '#server/lib/errors.ts';
import { copyForTransfer, createWorkerPool, transferBytes } from '#server/lib/worker-pool.ts';
import type { PdfCheckAnswer, PdfCheckJob } from './pdf-check-worker.ts';

/**
 * Every upload is read whole by pdf-lib (pdf-check.ts) in a pool of worker threads (decision 062),
 * as ID photos and the safe viewer's copies are: a large or hostile file costs a thread, never the
 * event loop beside the media hub or the process. Each thread's heap is bounded: pdf-lib turns a
 * byte of the file into up to ~66 bytes of objects (a 31 KB upload grew the heap by 2 GB and a
 * 1.5 KB one ended the process), so a file that needs more than any document does ends its thread
 * and is refused with a sentence. A file that takes longer than `checkTimeoutMs` is refused too.
 */

const poolSize = Math.max(1, availableParallelism() - 1);
/** Files waiting for a thread: a batch is up to 20, and several people upload at once. */
export const maxWaiting = 64;
/** The heap a thread may use to read one file: a 54 MB file of 450,000 small objects needs more than 512 MB. */
export const checkHeapMb = 1024;
const checkTimeoutMs = 60_000;
const workerEntry = new URL('./pdf-check-worker.mjs', import.meta.url);

const busy = () =>
  new AppError(503, 'documents_busy', 'Many documents are being checked right now. Try again in a minute.', undefined, { 'retry-after': '60' });
const unavailable = () => new AppError(503, 'documents_unavailable', 'The document could not be checked just now. Try again in a minute.');

const pool = createWorkerPool<Omit<PdfCheckJob, 'id'>, PdfCheckAnswer | { ready: true; id?: undefined }, number>({
  entry: workerEntry,
  size: poolSize,
  maxWaiting,
  resourceLimits: { maxOldGenerationSizeMb: checkHeapMb, maxYoungGenerationSizeMb: 32 },
  settle(answer, job) {
    if ('pageCount' in answer) job.resolve(answer.pageCount);
    else if ('refusal' in answer) job.reject(new AppError(answer.refusal.statusCode, answer.refusal.code as ErrorCode, answer.refusal.message));
    else job.reject(new Error(`Checking a PDF failed: ${'error' in answer ? answer.error : 'no answer'}`));
  },
  timedOut(job) {
    job.reject(new AppError(422, 'pdf_too_complex', `${job.message.fileName}: ${documentMessages.tooComplex}`));
  },
  failed(job, error) {
    // Only a thread that ran out of its heap says something about the file; any other failure is ours.
    if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      job.reject(new AppError(422, 'pdf_too_complex', `${job.message.fileName}: ${documentMessages.tooComplex}`));
    } else job.reject(unavailable());
  },
  unavailable,
  busy,
  transfer: transferBytes,
});

/** How many files of one account may be checked or waiting at once: one account cannot fill the queue. */
export const maxChecksPerAccount = 4;
/** How many files from one network may be: accounts are cheap, so many from one place cannot either. */
export const maxChecksPerNetwork = 8;
const checksHeld = new Map<string, number>();

/** Who is asking: the uploader's account and network (each holds a share of the pool). */
export interface CheckHolder {
  account?: string | null;
  network?: string | null;
}

/**
 * The page count of a real, readable, unencrypted PDF, read in the pool from a copy of the bytes
 * (the caller's buffer stays usable); an AppError with a sentence for any other file. The asking
 * account has at most `maxChecksPerAccount` files in the pool at once, its network `maxChecksPerNetwork`.
 */
export async function checkPdfBytes(bytes: Uint8Array, fileName: string, holder: CheckHolder = {}): Promise<number> {
  const keys: Array<[string, number, string]> = [];
  if (holder.account) keys.push([`account:${holder.account}`, maxChecksPerAccount, `${maxChecksPerAccount} of your documents are being checked right now`]);
  if (holder.network)
    keys.push([`network:${holder.network}`, maxChecksPerNetwork, `${maxChecksPerNetwork} documents from your network are being checked right now`]);
  const full = keys.find(([key, limit]) => (checksHeld.get(key) ?? 0) >= limit);
  if (full) {
    throw new AppError(429, 'rate_limited', `${fileName}: ${full[2]}. Add this one again when they are done.`, undefined, { 'retry-after': '30' });
  }
  for (const [key] of keys) checksHeld.set(key, (checksHeld.get(key) ?? 0) + 1);
  try {
    return await pool.run({ bytes: copyForTransfer(bytes), fileName }, checkTimeoutMs);
  } finally {
    for (const [key] of keys) {
      const left = (checksHeld.get(key) ?? 1) - 1;
      if (left > 0) checksHeld.set(key, left);
      else checksHeld.delete(key);
    }
  }
}

/** checkPdfBytes of a file on disk (`head`: its first bytes, checked before the file is read). */
export async function checkPdf(filePath: string, head: Buffer, fileName: string): Promise<number> {
  if (!head.subarray(0, 1024).includes(Buffer.from('%PDF-'))) {
    throw new AppError(415, 'not_pdf', `${fileName}: ${documentMessages.notPdf}`);
  }
  return checkPdfBytes(await fs.promises.readFile(filePath), fileName);
}

/** Starts a checking thread ahead of the first upload (at server start): resolves once it is ready. */
export function startCheckingPdfs(): Promise<void> {
  return pool.warm();
}

/** Checking threads loaded and ready. */
export function readyCheckingThreads(): number {
  return pool.readyThreads();
}

/** Stops every checking thread (tests, shutdown); files still waiting fail with 503. */
export function stopCheckingPdfs(): Promise<void> {
  return pool.stop();
}
