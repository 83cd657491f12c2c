import { parentPort } from 'node:worker_threads';
import { sanitisePdf, UnreadablePdfError } from './sanitise-pdf.ts';

/** One thread of the pool in sanitise-pool.ts: sanitises the PDFs it is sent, one at a time. */

export interface SanitiseJob {
  id: number;
  bytes: Uint8Array;
}

export type SanitiseAnswer = { id: number; bytes: Uint8Array } | { id: number; error: string; isUnreadable: boolean };

const port = parentPort;
if (!port) throw new Error('sanitise-worker.ts runs as a worker thread.');

port.on('message', (job: SanitiseJob) => {
  sanitisePdf(job.bytes).then(
    (bytes) => port.postMessage({ id: job.id, bytes } satisfies SanitiseAnswer, [bytes.buffer as ArrayBuffer]),
    (error: unknown) =>
      port.postMessage({
        id: job.id,
        error: error instanceof Error ? error.message : String(error),
        isUnreadable: error instanceof UnreadablePdfError,
      } satisfies SanitiseAnswer),
  );
});
port.postMessage({ ready: true });
