import { parentPort } from 'node:worker_threads';
import { AppError } from '#server/lib/errors.ts';
import { readPdfPageCount } from './pdf-check.ts';

/** One thread of the pool in pdf-check-pool.ts: reads the PDFs it is sent, one at a time. */

export interface PdfCheckJob {
  id: number;
  bytes: Uint8Array;
  fileName: string;
}

export type PdfCheckAnswer =
  { id: number; pageCount: number } | { id: number; refusal: { statusCode: number; code: string; message: string } } | { id: number; error: string };

const port = parentPort;
if (!port) throw new Error('pdf-check-worker.ts runs as a worker thread.');

port.on('message', (job: PdfCheckJob) => {
  readPdfPageCount(job.bytes, job.fileName).then(
    (pageCount) => port.postMessage({ id: job.id, pageCount } satisfies PdfCheckAnswer),
    (error: unknown) =>
      port.postMessage(
        (error instanceof AppError
          ? { id: job.id, refusal: { statusCode: error.statusCode, code: error.code, message: error.message } }
          : { id: job.id, error: error instanceof Error ? error.message : String(error) }) satisfies PdfCheckAnswer,
      ),
  );
});
port.postMessage({ ready: true });
