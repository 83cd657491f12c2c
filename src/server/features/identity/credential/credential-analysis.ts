import { EventEmitter } from 'node:events';
import { availableParallelism } from 'node:os';
import { AppError } from '#server/lib/errors.ts';
import { createWorkerPool } from '#server/lib/worker-pool.ts';
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

type Answer = { ready?: true; id?: number; reading?: CredentialReading; error?: string };

const pool = createWorkerPool<Omit<AnalysisJob, 'id'>, Answer, CredentialReading>({
  entry: workerEntry,
  size: poolSize,
  maxWaiting,
  settle(answer, job) {
    if (answer.reading) job.resolve(answer.reading);
    else job.reject(new Error(`Credential analysis failed: ${answer.error ?? 'no reading'}`));
  },
  timedOut(job) {
    job.resolve(toTimedOut(job.message.input, job.timeoutMs));
  },
  unavailable,
  busy,
  onStart: () => credentialAnalysisEvents.emit('started'),
});

/**
 * Analyses an ID's photos in the pool (see analyseCredential in credential-reader.ts). Resolves with
 * a failed reading when the analysis runs past `timeoutMs`; rejects with 503 when its thread fails.
 */
export function analyseCredentialInPool(input: CredentialImages, person: StatedPerson, now: Date, timeoutMs: number): Promise<CredentialReading> {
  // A bounded queue: beyond it a person hears at once to try again, instead of waiting minutes.
  return pool.run({ input, person, now: now.toISOString() }, timeoutMs);
}

/** Stops every analysis thread (tests, shutdown); jobs still waiting fail with 503, and the next job starts a new thread. */
export function stopCredentialAnalysis(): Promise<void> {
  return pool.stop();
}
